"""SBE messages of schema 1 version 2, generated from bgw.xml.

Do not edit: regenerate with ``clients/python/regen.sh`` (see
:mod:`bgw_client.codegen`). Times are uint64 UTC nanoseconds since the Unix epoch;
prices and quantities are :class:`decimal.Decimal` (exact, from the SBE mantissa and
exponent); fields with presence optional are ``None`` when the wire holds the SBE null.
"""

# fmt: off
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal
from typing import ClassVar

from .fields import (CharArray, DecimalCodec, EnumCodec, FieldSpec, GroupSpec, Prim,
                     SbeGroupEntry, SbeMessage)

SCHEMA_ID = 1
"""``messageSchema/@id``: the schemaId of every message header."""
SCHEMA_VERSION = 2
"""``messageSchema/@version``: written in every message header this client encodes."""
HEADER_FORMAT = '<HHHH'
"""struct format of ``messageHeader`` (blockLength, templateId, schemaId, version)."""
GROUP_SIZE_FORMAT = '<HH'
"""struct format of ``groupSizeEncoding`` (blockLength, numInGroup)."""


class Side(enum.IntEnum):
    """Side (SBE enum Side, encoding uint8)."""

    BUY = 1
    """Buy"""
    SELL = 2
    """Sell"""


class OrdType(enum.IntEnum):
    """OrdType (SBE enum OrdType, encoding uint8)."""

    MARKET = 1
    """Market"""
    LIMIT = 2
    """Limit"""


class TimeInForce(enum.IntEnum):
    """TimeInForce (SBE enum TimeInForce, encoding uint8)."""

    GTC = 1
    """Gtc"""
    IOC = 3
    """Ioc"""
    FOK = 4
    """Fok"""
    POST_ONLY = 8
    """PostOnly"""


class Category(enum.IntEnum):
    """Category (SBE enum Category, encoding uint8)."""

    SPOT = 1
    """Spot"""
    MARGIN = 2
    """Margin"""
    USDT_FUTURES = 3
    """UsdtFutures"""
    COIN_FUTURES = 4
    """CoinFutures"""
    USDC_FUTURES = 5
    """UsdcFutures"""


class PosSide(enum.IntEnum):
    """PosSide (SBE enum PosSide, encoding uint8)."""

    NONE = 0
    """None"""
    LONG = 1
    """Long"""
    SHORT = 2
    """Short"""


class BooleanType(enum.IntEnum):
    """BooleanType (SBE enum BooleanType, encoding uint8)."""

    NO = 0
    """No"""
    YES = 1
    """Yes"""


class StpMode(enum.IntEnum):
    """StpMode (SBE enum StpMode, encoding uint8)."""

    DEFAULT = 0
    """Default: let the venue decide"""
    NONE = 1
    """None"""
    CANCEL_TAKER = 2
    """CancelTaker"""
    CANCEL_MAKER = 3
    """CancelMaker"""
    CANCEL_BOTH = 4
    """CancelBoth"""


class ExecType(str, enum.Enum):
    """ExecType (SBE enum ExecType, encoding char)."""

    NEW = '0'
    """New"""
    PARTIAL_FILL = '1'
    """PartialFill"""
    FILL = '2'
    """Fill"""
    CANCELED = '4'
    """Canceled"""
    REPLACED = '5'
    """Replaced"""
    PENDING_CANCEL = '6'
    """PendingCancel"""
    REJECTED = '8'
    """Rejected"""
    PENDING_NEW = 'A'
    """PendingNew"""
    PENDING_REPLACE = 'E'
    """PendingReplace"""
    ORDER_STATUS = 'I'
    """OrderStatus: answer to an OrderMassStatusRequest"""


class OrdStatus(str, enum.Enum):
    """OrdStatus (SBE enum OrdStatus, encoding char)."""

    NEW = '0'
    """New"""
    PARTIALLY_FILLED = '1'
    """PartiallyFilled"""
    FILLED = '2'
    """Filled"""
    CANCELED = '4'
    """Canceled"""
    PENDING_CANCEL = '6'
    """PendingCancel"""
    REJECTED = '8'
    """Rejected"""
    PENDING_NEW = 'A'
    """PendingNew"""
    PENDING_REPLACE = 'E'
    """PendingReplace"""


class OrdRejReason(enum.IntEnum):
    """OrdRejReason (SBE enum OrdRejReason, encoding uint8)."""

    BROKER_OPTION = 0
    """BrokerOption"""
    UNKNOWN_SYMBOL = 1
    """UnknownSymbol"""
    EXCHANGE_CLOSED = 2
    """ExchangeClosed"""
    ORDER_EXCEEDS_LIMIT = 3
    """OrderExceedsLimit"""
    UNKNOWN_ORDER = 5
    """UnknownOrder"""
    DUPLICATE_ORDER = 6
    """DuplicateOrder"""
    UNSUPPORTED_ORDER_CHARACTERISTIC = 11
    """UnsupportedOrderCharacteristic"""
    INCORRECT_QUANTITY = 13
    """IncorrectQuantity"""
    PRICE_EXCEEDS_BAND = 16
    """PriceExceedsBand"""
    INVALID_PRICE_INCREMENT = 18
    """InvalidPriceIncrement"""
    OTHER = 99
    """Other"""
    EXCHANGE_REJECT = 100
    """ExchangeReject: see ExchangeCode and Text"""
    NOT_APPLIED = 101
    """NotApplied: outcome known: never sent to the exchange"""
    THROTTLE_LIMIT_EXCEEDED = 102
    """ThrottleLimitExceeded: no rate-budget token; never sent"""
    KILL_SWITCH = 103
    """KillSwitch: kill switch on; never sent"""
    RISK_LIMIT = 104
    """RiskLimit: pre-trade risk limit named in Text; never sent"""


class CxlRejResponseTo(str, enum.Enum):
    """CxlRejResponseTo (SBE enum CxlRejResponseTo, encoding char)."""

    ORDER_CANCEL_REQUEST = '1'
    """OrderCancelRequest"""
    ORDER_CANCEL_REPLACE_REQUEST = '2'
    """OrderCancelReplaceRequest"""


class CxlRejReason(enum.IntEnum):
    """CxlRejReason (SBE enum CxlRejReason, encoding uint8)."""

    TOO_LATE_TO_CANCEL = 0
    """TooLateToCancel"""
    UNKNOWN_ORDER = 1
    """UnknownOrder"""
    PENDING_STATUS = 3
    """PendingStatus"""
    DUPLICATE_CL_ORD_ID = 6
    """DuplicateClOrdID"""
    OTHER = 99
    """Other"""
    EXCHANGE_REJECT = 100
    """ExchangeReject: see ExchangeCode and Text"""
    NOT_APPLIED = 101
    """NotApplied: outcome known: never sent to the exchange"""
    THROTTLE_LIMIT_EXCEEDED = 102
    """ThrottleLimitExceeded: no rate-budget token; never sent"""


class BusinessRejectReason(enum.IntEnum):
    """BusinessRejectReason (SBE enum BusinessRejectReason, encoding uint8)."""

    OTHER = 0
    """Other"""
    UNKNOWN_ID = 1
    """UnknownID"""
    UNKNOWN_SECURITY = 2
    """UnknownSecurity"""
    UNSUPPORTED_MESSAGE_TYPE = 3
    """UnsupportedMessageType"""
    APPLICATION_NOT_AVAILABLE = 4
    """ApplicationNotAvailable"""
    CONDITIONALLY_REQUIRED_FIELD_MISSING = 5
    """ConditionallyRequiredFieldMissing"""
    NOT_AUTHORIZED = 6
    """NotAuthorized"""
    INVALID_FIELD = 7
    """InvalidField: custom"""
    THROTTLE_LIMIT_EXCEEDED = 8
    """ThrottleLimitExceeded"""


class FlowType(enum.IntEnum):
    """FlowType (SBE enum FlowType, encoding uint8)."""

    RECOVERABLE = 0
    """Recoverable"""
    UNSEQUENCED = 1
    """Unsequenced"""
    IDEMPOTENT = 2
    """Idempotent"""
    NONE = 3
    """None"""


class NegotiationRejectCode(enum.IntEnum):
    """NegotiationRejectCode (SBE enum NegotiationRejectCode, encoding uint8)."""

    UNSPECIFIED = 0
    """Unspecified"""
    CREDENTIALS = 1
    """Credentials"""
    FLOW_TYPE_NOT_SUPPORTED = 2
    """FlowTypeNotSupported"""
    DUPLICATE_ID = 3
    """DuplicateId"""
    STALE_SESSION_VERSION = 4
    """StaleSessionVersion: SessionVerID lower than the current epoch"""


class EstablishmentRejectCode(enum.IntEnum):
    """EstablishmentRejectCode (SBE enum EstablishmentRejectCode, encoding uint8)."""

    UNSPECIFIED = 0
    """Unspecified"""
    UNNEGOTIATED = 1
    """Unnegotiated"""
    ALREADY_ESTABLISHED = 2
    """AlreadyEstablished"""
    SESSION_BLOCKED = 3
    """SessionBlocked"""
    KEEPALIVE_INTERVAL = 4
    """KeepaliveInterval"""
    CREDENTIALS = 5
    """Credentials"""


class TerminationCode(enum.IntEnum):
    """TerminationCode (SBE enum TerminationCode, encoding uint8)."""

    FINISHED = 0
    """Finished"""
    UNSPECIFIED_ERROR = 1
    """UnspecifiedError"""
    RE_REQUEST_OUT_OF_BOUNDS = 2
    """ReRequestOutOfBounds"""
    RE_REQUEST_IN_PROGRESS = 3
    """ReRequestInProgress"""
    KEEPALIVE_TIMEOUT = 4
    """KeepaliveTimeout"""
    PROTOCOL_ERROR = 5
    """ProtocolError"""
    EXCHANGE_UNAVAILABLE = 6
    """ExchangeUnavailable"""
    SESSION_ROLLOVER = 7
    """SessionRollover: the gateway ended the epoch (scheduled rollover); negotiate again with SessionVerID 0 or the new epoch"""


class RetransmitRejectCode(enum.IntEnum):
    """Why a RetransmitRequest was refused (FIXP) (SBE enum RetransmitRejectCode, encoding uint8)."""

    OUT_OF_RANGE = 0
    """OutOfRange"""
    INVALID_SESSION = 1
    """InvalidSession"""
    REQUEST_LIMIT_EXCEEDED = 2
    """RequestLimitExceeded"""
    UNAVAILABLE = 3
    """Unavailable: messages no longer kept (retention) or journal not readable"""


class ItemStatus(enum.IntEnum):
    """Outcome of one item or request (SBE enum ItemStatus, encoding uint8)."""

    ACCEPTED = 0
    """Accepted"""
    REJECTED = 1
    """Rejected"""


class MassCancelRequestType(str, enum.Enum):
    """FIX 530; S and D are custom (SBE enum MassCancelRequestType, encoding char)."""

    SYMBOL = '1'
    """Symbol"""
    ACCOUNT = '7'
    """Account"""
    SESSION = 'S'
    """Session: orders of this session"""
    SIDE = 'D'
    """Side: orders of one side"""


class MassCancelResponse(str, enum.Enum):
    """FIX 531; S and D are custom (SBE enum MassCancelResponse, encoding char)."""

    REJECTED = '0'
    """Rejected"""
    SYMBOL = '1'
    """Symbol"""
    ACCOUNT = '7'
    """Account"""
    SESSION = 'S'
    """Session"""
    SIDE = 'D'
    """Side"""


class MassCancelRejectReason(enum.IntEnum):
    """FIX 532; 100 and 101 are custom (SBE enum MassCancelRejectReason, encoding uint8)."""

    NOT_SUPPORTED = 0
    """NotSupported"""
    INVALID_SECURITY = 1
    """InvalidSecurity"""
    OTHER = 99
    """Other"""
    EXCHANGE_REJECT = 100
    """ExchangeReject: see ExchangeCode and Text"""
    NOT_APPLIED = 101
    """NotApplied: outcome known: never sent to the exchange"""


class MassStatusReqType(enum.IntEnum):
    """FIX 585; 100 is custom (SBE enum MassStatusReqType, encoding uint8)."""

    SYMBOL = 1
    """Symbol"""
    ACCOUNT = 7
    """Account"""
    SESSION = 100
    """Session: orders of this session"""


class KillSwitchScope(enum.IntEnum):
    """What a KillSwitchRequest covers (SBE enum KillSwitchScope, encoding uint8)."""

    ACCOUNT = 1
    """Account"""
    GATEWAY = 2
    """Gateway"""


class KillSwitchAction(enum.IntEnum):
    """Turn the kill switch on or off (SBE enum KillSwitchAction, encoding uint8)."""

    ACTIVATE = 1
    """Activate"""
    RELEASE = 2
    """Release"""


class HoldMode(enum.IntEnum):
    """Bitget holdMode (SBE enum HoldMode, encoding uint8)."""

    ONE_WAY = 1
    """OneWay"""
    HEDGE = 2
    """Hedge"""


class AccountRequestType(enum.IntEnum):
    """Request answered by an AccountRequestReport (SBE enum AccountRequestType, encoding uint8)."""

    SET_LEVERAGE = 1
    """SetLeverage"""
    SET_HOLD_MODE = 2
    """SetHoldMode"""
    MAX_OPEN_AVAILABLE = 3
    """MaxOpenAvailable"""
    ACCOUNT_SETTINGS = 4
    """AccountSettings"""


class MovePositionsRejectReason(enum.IntEnum):
    """The move-positions rule broken (SBE enum MovePositionsRejectReason, encoding uint8)."""

    NOT_MASTER_ACCOUNT = 1
    """NotMasterAccount"""
    CATEGORY_NOT_ALLOWED = 2
    """CategoryNotAllowed: only USDT and USDC futures"""
    NOT_CROSS_MARGIN = 3
    """NotCrossMargin"""
    NEAR_FUNDING_TIME = 4
    """NearFundingTime: within 5 minutes of a funding hour"""
    SOURCE_MMR_TOO_HIGH = 5
    """SourceMmrTooHigh: source MMR at or above 80 %"""
    DAILY_LIMIT = 6
    """DailyLimit"""
    TOO_FREQUENT = 7
    """TooFrequent"""
    TOO_MANY_POSITIONS = 8
    """TooManyPositions: more than 10"""
    INVALID_UID = 9
    """InvalidUid"""
    INSUFFICIENT_POSITION = 10
    """InsufficientPosition"""
    OTHER = 99
    """Other"""
    EXCHANGE_REJECT = 100
    """ExchangeReject: see ExchangeCode and Text"""
    NOT_APPLIED = 101
    """NotApplied: outcome known: never sent to the exchange"""


@dataclass(kw_only=True, slots=True)
class Negotiate(SbeMessage):
    """Strategy opens a session and presents its credentials (FIXP Negotiate).

    SBE template 1, block length 89 bytes (81 from a sender of schema version 0)."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0): Session id chosen by the strategy."""
    timestamp: int = 0
    """Timestamp (id 5002; uint64; offset 8): Send time, UTC ns."""
    client_flow: FlowType
    """ClientFlow (id 5003; FlowType; offset 16): Flow of strategy to gateway messages (Idempotent)."""
    credentials: str = ""
    """Credentials (id 5004; Text: 64 bytes UTF-8, NUL-padded; offset 17): Strategy credentials."""
    session_ver_id: int = 0
    """SessionVerID (id 5016; uint64; since schema version 1, 0 when an older sender did not send it; offset 81): Epoch (session version) the strategy asks for: 0 = whichever is current (a strategy that does not track epochs); the current one = resume it; a higher one = end the current epoch and start that one (rollover); a lower one is refused (StaleSessionVersion). Absent (read as 0) from a version-0 sender."""

    TEMPLATE_ID: ClassVar[int] = 1
    BLOCK_LENGTH: ClassVar[int] = 89
    MIN_BLOCK_LENGTH: ClassVar[int] = 81
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('timestamp', 'Timestamp', 5002, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('client_flow', 'ClientFlow', 5003, 16, EnumCodec(FlowType, 'uint8', 'B', null=None)),
        FieldSpec('credentials', 'Credentials', 5004, 17, CharArray(64, 'UTF-8')),
        FieldSpec('session_ver_id', 'SessionVerID', 5016, 81, Prim('uint64', 'Q', 8, null=None), since_version=1),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class NegotiationResponse(SbeMessage):
    """Gateway accepts the Negotiate (FIXP NegotiationResponse).

    SBE template 2, block length 25 bytes (17 from a sender of schema version 0)."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    request_timestamp: int = 0
    """RequestTimestamp (id 5005; uint64; offset 8): Timestamp of the request answered, UTC ns."""
    server_flow: FlowType
    """ServerFlow (id 5006; FlowType; offset 16): Flow of gateway to strategy messages (Recoverable)."""
    session_ver_id: int = 0
    """SessionVerID (id 5016; uint64; since schema version 1, 0 when an older sender did not send it; offset 17): Epoch (session version) in force after this Negotiate (1 and up). Absent (read as 0) from a version-0 gateway."""

    TEMPLATE_ID: ClassVar[int] = 2
    BLOCK_LENGTH: ClassVar[int] = 25
    MIN_BLOCK_LENGTH: ClassVar[int] = 17
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('request_timestamp', 'RequestTimestamp', 5005, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('server_flow', 'ServerFlow', 5006, 16, EnumCodec(FlowType, 'uint8', 'B', null=None)),
        FieldSpec('session_ver_id', 'SessionVerID', 5016, 17, Prim('uint64', 'Q', 8, null=None), since_version=1),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class NegotiationReject(SbeMessage):
    """Gateway refuses the Negotiate (FIXP NegotiationReject).

    SBE template 3, block length 81 bytes."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    request_timestamp: int = 0
    """RequestTimestamp (id 5005; uint64; offset 8): Timestamp of the request answered, UTC ns."""
    code: NegotiationRejectCode
    """Code (id 5007; NegotiationRejectCode; offset 16)."""
    reason: str = ""
    """Reason (id 5008; Text: 64 bytes UTF-8, NUL-padded; offset 17)."""

    TEMPLATE_ID: ClassVar[int] = 3
    BLOCK_LENGTH: ClassVar[int] = 81
    MIN_BLOCK_LENGTH: ClassVar[int] = 81
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('request_timestamp', 'RequestTimestamp', 5005, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('code', 'Code', 5007, 16, EnumCodec(NegotiationRejectCode, 'uint8', 'B', null=None)),
        FieldSpec('reason', 'Reason', 5008, 17, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class Establish(SbeMessage):
    """Strategy starts or resumes the negotiated session (FIXP Establish).

    SBE template 4, block length 28 bytes."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    timestamp: int = 0
    """Timestamp (id 5002; uint64; offset 8): Send time, UTC ns."""
    keepalive_interval: int = 0
    """KeepaliveInterval (id 5009; uint32; offset 16): Longest silence before a Sequence keepalive, ms."""
    next_seq_no: int = 0
    """NextSeqNo (id 5010; uint64; offset 20): Next sequence number the sender will send."""

    TEMPLATE_ID: ClassVar[int] = 4
    BLOCK_LENGTH: ClassVar[int] = 28
    MIN_BLOCK_LENGTH: ClassVar[int] = 28
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('timestamp', 'Timestamp', 5002, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('keepalive_interval', 'KeepaliveInterval', 5009, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('next_seq_no', 'NextSeqNo', 5010, 20, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class EstablishmentAck(SbeMessage):
    """Gateway accepts the Establish (FIXP EstablishmentAck).

    SBE template 5, block length 44 bytes (28 from a sender of schema version 0)."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    request_timestamp: int = 0
    """RequestTimestamp (id 5005; uint64; offset 8): Timestamp of the request answered, UTC ns."""
    keepalive_interval: int = 0
    """KeepaliveInterval (id 5009; uint32; offset 16): Keepalive interval of the gateway, ms."""
    next_seq_no: int = 0
    """NextSeqNo (id 5010; uint64; offset 20): Next sequence number the sender will send."""
    previous_session_ver_id: int | None = None
    """PreviousSessionVerID (id 5017; uint64, optional (None = SBE null); since schema version 2, None when an older sender did not send it; offset 28): Epoch before the one in force (CME iLink 3 PreviousUUID); null (2^64-1) when there was none, and from a sender below version 2."""
    previous_seq_no: int = 0
    """PreviousSeqNo (id 5018; uint64; since schema version 2, 0 when an older sender did not send it; offset 36): Sequence number of the previous epoch's last application message (CME iLink 3 PreviousSeqNo); 0 when it had none, and from a sender below version 2."""

    TEMPLATE_ID: ClassVar[int] = 5
    BLOCK_LENGTH: ClassVar[int] = 44
    MIN_BLOCK_LENGTH: ClassVar[int] = 28
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('request_timestamp', 'RequestTimestamp', 5005, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('keepalive_interval', 'KeepaliveInterval', 5009, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('next_seq_no', 'NextSeqNo', 5010, 20, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('previous_session_ver_id', 'PreviousSessionVerID', 5017, 28, Prim('uint64', 'Q', 8, null=18446744073709551615), since_version=2),
        FieldSpec('previous_seq_no', 'PreviousSeqNo', 5018, 36, Prim('uint64', 'Q', 8, null=None), since_version=2),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class EstablishmentReject(SbeMessage):
    """Gateway refuses the Establish (FIXP EstablishmentReject).

    SBE template 6, block length 81 bytes."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    request_timestamp: int = 0
    """RequestTimestamp (id 5005; uint64; offset 8): Timestamp of the request answered, UTC ns."""
    code: EstablishmentRejectCode
    """Code (id 5011; EstablishmentRejectCode; offset 16)."""
    reason: str = ""
    """Reason (id 5008; Text: 64 bytes UTF-8, NUL-padded; offset 17)."""

    TEMPLATE_ID: ClassVar[int] = 6
    BLOCK_LENGTH: ClassVar[int] = 81
    MIN_BLOCK_LENGTH: ClassVar[int] = 81
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('request_timestamp', 'RequestTimestamp', 5005, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('code', 'Code', 5011, 16, EnumCodec(EstablishmentRejectCode, 'uint8', 'B', null=None)),
        FieldSpec('reason', 'Reason', 5008, 17, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class Sequence(SbeMessage):
    """Keepalive with the next sequence number (FIXP Sequence).

    SBE template 7, block length 8 bytes."""

    next_seq_no: int = 0
    """NextSeqNo (id 5010; uint64; offset 0): Next sequence number the sender will send."""

    TEMPLATE_ID: ClassVar[int] = 7
    BLOCK_LENGTH: ClassVar[int] = 8
    MIN_BLOCK_LENGTH: ClassVar[int] = 8
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('next_seq_no', 'NextSeqNo', 5010, 0, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class Terminate(SbeMessage):
    """Either side ends the session (FIXP Terminate).

    SBE template 8, block length 73 bytes."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    code: TerminationCode
    """Code (id 5012; TerminationCode; offset 8)."""
    reason: str = ""
    """Reason (id 5008; Text: 64 bytes UTF-8, NUL-padded; offset 9)."""

    TEMPLATE_ID: ClassVar[int] = 8
    BLOCK_LENGTH: ClassVar[int] = 73
    MIN_BLOCK_LENGTH: ClassVar[int] = 73
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('code', 'Code', 5012, 8, EnumCodec(TerminationCode, 'uint8', 'B', null=None)),
        FieldSpec('reason', 'Reason', 5008, 9, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class RetransmitRequest(SbeMessage):
    """Strategy asks for application messages again (FIXP RetransmitRequest).

    SBE template 9, block length 36 bytes (28 from a sender of schema version 0)."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    timestamp: int = 0
    """Timestamp (id 5002; uint64; offset 8): Send time, UTC ns."""
    from_seq_no: int = 0
    """FromSeqNo (id 5013; uint64; offset 16): First sequence number asked for."""
    count: int = 0
    """Count (id 5014; uint32; offset 24): Number of messages asked for."""
    last_session_ver_id: int | None = None
    """LastSessionVerID (id 5019; uint64, optional (None = SBE null); since schema version 2, None when an older sender did not send it; offset 28): Epoch the messages belong to (CME iLink 3 LastUUID): null (2^64-1, and from a sender below version 2) = the epoch in force; the previous epoch (EstablishmentAck PreviousSessionVerID) = its messages while its journal segments are kept."""

    TEMPLATE_ID: ClassVar[int] = 9
    BLOCK_LENGTH: ClassVar[int] = 36
    MIN_BLOCK_LENGTH: ClassVar[int] = 28
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('timestamp', 'Timestamp', 5002, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('from_seq_no', 'FromSeqNo', 5013, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('count', 'Count', 5014, 24, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('last_session_ver_id', 'LastSessionVerID', 5019, 28, Prim('uint64', 'Q', 8, null=18446744073709551615), since_version=2),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class Retransmission(SbeMessage):
    """The next Count application messages are resent originals (FIXP Retransmission).

    SBE template 10, block length 36 bytes (28 from a sender of schema version 0)."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    request_timestamp: int = 0
    """RequestTimestamp (id 5005; uint64; offset 8): Timestamp of the request answered, UTC ns."""
    next_seq_no: int = 0
    """NextSeqNo (id 5010; uint64; offset 16): Sequence number of the first resent message."""
    count: int = 0
    """Count (id 5014; uint32; offset 24): Number of resent messages that follow."""
    session_ver_id: int | None = None
    """SessionVerID (id 5016; uint64, optional (None = SBE null); since schema version 2, None when an older sender did not send it; offset 28): Epoch the resent messages belong to (the request's LastSessionVerID, or the epoch in force); null from a sender below version 2."""

    TEMPLATE_ID: ClassVar[int] = 10
    BLOCK_LENGTH: ClassVar[int] = 36
    MIN_BLOCK_LENGTH: ClassVar[int] = 28
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('request_timestamp', 'RequestTimestamp', 5005, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('next_seq_no', 'NextSeqNo', 5010, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('count', 'Count', 5014, 24, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('session_ver_id', 'SessionVerID', 5016, 28, Prim('uint64', 'Q', 8, null=18446744073709551615), since_version=2),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class RetransmitReject(SbeMessage):
    """Gateway refuses the RetransmitRequest (FIXP RetransmitReject).

    SBE template 11, block length 81 bytes."""

    session_id: int = 0
    """SessionID (id 5001; uint64; offset 0)."""
    request_timestamp: int = 0
    """RequestTimestamp (id 5005; uint64; offset 8): Timestamp of the request answered, UTC ns."""
    code: RetransmitRejectCode
    """Code (id 5015; RetransmitRejectCode; offset 16)."""
    reason: str = ""
    """Reason (id 5008; Text: 64 bytes UTF-8, NUL-padded; offset 17)."""

    TEMPLATE_ID: ClassVar[int] = 11
    BLOCK_LENGTH: ClassVar[int] = 81
    MIN_BLOCK_LENGTH: ClassVar[int] = 81
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('session_id', 'SessionID', 5001, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('request_timestamp', 'RequestTimestamp', 5005, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('code', 'Code', 5015, 16, EnumCodec(RetransmitRejectCode, 'uint8', 'B', null=None)),
        FieldSpec('reason', 'Reason', 5008, 17, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class NotApplied(SbeMessage):
    """Strategy messages skipped by its idempotent flow were not applied (FIXP NotApplied).

    SBE template 12, block length 12 bytes."""

    from_seq_no: int = 0
    """FromSeqNo (id 5013; uint64; offset 0): First sequence number not applied."""
    count: int = 0
    """Count (id 5014; uint32; offset 8): Number of sequence numbers not applied."""

    TEMPLATE_ID: ClassVar[int] = 12
    BLOCK_LENGTH: ClassVar[int] = 12
    MIN_BLOCK_LENGTH: ClassVar[int] = 12
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('from_seq_no', 'FromSeqNo', 5013, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('count', 'Count', 5014, 8, Prim('uint32', 'I', 4, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class NewOrderSingle(SbeMessage):
    """Place one order (FIX 35=D).

    SBE template 101, block length 57 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): Strategy order id, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): UTC ns."""
    price: Decimal | None = None
    """Price (FIX tag 44; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 16): Limit price; null for market orders."""
    order_qty: Decimal
    """OrderQty (FIX tag 38; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 25)."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 34)."""
    category: Category
    """Category (id 5020; Category; offset 50)."""
    side: Side
    """Side (FIX tag 54; Side; offset 51)."""
    ord_type: OrdType
    """OrdType (FIX tag 40; OrdType; offset 52)."""
    time_in_force: TimeInForce
    """TimeInForce (FIX tag 59; TimeInForce; offset 53)."""
    pos_side: PosSide
    """PosSide (id 5021; PosSide; offset 54)."""
    reduce_only: BooleanType
    """ReduceOnly (id 5022; BooleanType; offset 55)."""
    stp_mode: StpMode
    """StpMode (id 5023; StpMode; offset 56)."""

    TEMPLATE_ID: ClassVar[int] = 101
    BLOCK_LENGTH: ClassVar[int] = 57
    MIN_BLOCK_LENGTH: ClassVar[int] = 57
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('price', 'Price', 44, 16, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('order_qty', 'OrderQty', 38, 25, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('symbol', 'Symbol', 55, 34, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 50, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 51, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('ord_type', 'OrdType', 40, 52, EnumCodec(OrdType, 'uint8', 'B', null=None)),
        FieldSpec('time_in_force', 'TimeInForce', 59, 53, EnumCodec(TimeInForce, 'uint8', 'B', null=None)),
        FieldSpec('pos_side', 'PosSide', 5021, 54, EnumCodec(PosSide, 'uint8', 'B', null=None)),
        FieldSpec('reduce_only', 'ReduceOnly', 5022, 55, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
        FieldSpec('stp_mode', 'StpMode', 5023, 56, EnumCodec(StpMode, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class OrderCancelRequest(SbeMessage):
    """Cancel one order (FIX 35=F).

    SBE template 102, block length 42 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): Id of this request."""
    orig_cl_ord_id: int = 0
    """OrigClOrdID (FIX tag 41; uint64; offset 8): ClOrdID of the order to cancel."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 16): UTC ns."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 24)."""
    category: Category
    """Category (id 5020; Category; offset 40)."""
    side: Side
    """Side (FIX tag 54; Side; offset 41)."""

    TEMPLATE_ID: ClassVar[int] = 102
    BLOCK_LENGTH: ClassVar[int] = 42
    MIN_BLOCK_LENGTH: ClassVar[int] = 42
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('orig_cl_ord_id', 'OrigClOrdID', 41, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 24, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 40, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 41, EnumCodec(Side, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class OrderCancelReplaceRequest(SbeMessage):
    """Modify the price and/or quantity of one order (FIX 35=G).

    SBE template 103, block length 61 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): Id of this request."""
    orig_cl_ord_id: int = 0
    """OrigClOrdID (FIX tag 41; uint64; offset 8): ClOrdID of the order to modify."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 16): UTC ns."""
    price: Decimal | None = None
    """Price (FIX tag 44; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 24): New price; null keeps the current one."""
    order_qty: Decimal | None = None
    """OrderQty (FIX tag 38; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 33): New total quantity, required as in FIX 35=G: null is answered with OrderCancelReject (Other, "OrderQty is required")."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 42)."""
    category: Category
    """Category (id 5020; Category; offset 58)."""
    side: Side
    """Side (FIX tag 54; Side; offset 59)."""
    auto_cancel: BooleanType
    """AutoCancel (id 5024; BooleanType; offset 60): Cancel the order if the modification fails."""

    TEMPLATE_ID: ClassVar[int] = 103
    BLOCK_LENGTH: ClassVar[int] = 61
    MIN_BLOCK_LENGTH: ClassVar[int] = 61
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('orig_cl_ord_id', 'OrigClOrdID', 41, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('price', 'Price', 44, 24, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('order_qty', 'OrderQty', 38, 33, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('symbol', 'Symbol', 55, 42, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 58, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 59, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('auto_cancel', 'AutoCancel', 5024, 60, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class ExecutionReport(SbeMessage):
    """A change of state of an order (FIX 35=8).

    SBE template 104, block length 194 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0)."""
    orig_cl_ord_id: int = 0
    """OrigClOrdID (FIX tag 41; uint64; offset 8): 0 = none."""
    order_id: int = 0
    """OrderID (FIX tag 37; uint64; offset 16): Exchange orderId, 0 = none."""
    exec_id: int = 0
    """ExecID (FIX tag 17; uint64; offset 24): Exchange execId, 0 = none."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 32): UTC ns."""
    price: Decimal | None = None
    """Price (FIX tag 44; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 40): Null for market orders."""
    order_qty: Decimal
    """OrderQty (FIX tag 38; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 49)."""
    last_qty: Decimal | None = None
    """LastQty (FIX tag 32; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 58): Null when not a fill."""
    last_px: Decimal | None = None
    """LastPx (FIX tag 31; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 67): Null when not a fill."""
    cum_qty: Decimal
    """CumQty (FIX tag 14; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 76)."""
    leaves_qty: Decimal
    """LeavesQty (FIX tag 151; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 85)."""
    avg_px: Decimal | None = None
    """AvgPx (FIX tag 6; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 94): Null before the first fill."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 103): Bitget code, 0 = none."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 107)."""
    category: Category
    """Category (id 5020; Category; offset 123)."""
    side: Side
    """Side (FIX tag 54; Side; offset 124)."""
    ord_type: OrdType
    """OrdType (FIX tag 40; OrdType; offset 125)."""
    time_in_force: TimeInForce
    """TimeInForce (FIX tag 59; TimeInForce; offset 126)."""
    exec_type: ExecType
    """ExecType (FIX tag 150; ExecType; offset 127)."""
    ord_status: OrdStatus
    """OrdStatus (FIX tag 39; OrdStatus; offset 128)."""
    ord_rej_reason: OrdRejReason | None = None
    """OrdRejReason (FIX tag 103; OrdRejReason, optional (None = SBE null); offset 129): Null (255) unless ExecType = Rejected."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 130)."""

    TEMPLATE_ID: ClassVar[int] = 104
    BLOCK_LENGTH: ClassVar[int] = 194
    MIN_BLOCK_LENGTH: ClassVar[int] = 194
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('orig_cl_ord_id', 'OrigClOrdID', 41, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('order_id', 'OrderID', 37, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('exec_id', 'ExecID', 17, 24, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 32, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('price', 'Price', 44, 40, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('order_qty', 'OrderQty', 38, 49, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('last_qty', 'LastQty', 32, 58, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('last_px', 'LastPx', 31, 67, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('cum_qty', 'CumQty', 14, 76, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('leaves_qty', 'LeavesQty', 151, 85, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('avg_px', 'AvgPx', 6, 94, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 103, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 107, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 123, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 124, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('ord_type', 'OrdType', 40, 125, EnumCodec(OrdType, 'uint8', 'B', null=None)),
        FieldSpec('time_in_force', 'TimeInForce', 59, 126, EnumCodec(TimeInForce, 'uint8', 'B', null=None)),
        FieldSpec('exec_type', 'ExecType', 150, 127, EnumCodec(ExecType, 'char', 'c', null=None)),
        FieldSpec('ord_status', 'OrdStatus', 39, 128, EnumCodec(OrdStatus, 'char', 'c', null=None)),
        FieldSpec('ord_rej_reason', 'OrdRejReason', 103, 129, EnumCodec(OrdRejReason, 'uint8', 'B', null=255)),
        FieldSpec('text', 'Text', 58, 130, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class OrderCancelReject(SbeMessage):
    """A cancel or modify request was refused (FIX 35=9).

    SBE template 105, block length 103 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0)."""
    orig_cl_ord_id: int = 0
    """OrigClOrdID (FIX tag 41; uint64; offset 8)."""
    order_id: int = 0
    """OrderID (FIX tag 37; uint64; offset 16): Exchange orderId, 0 = unknown."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 24): UTC ns."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 32): Bitget code, 0 = none."""
    ord_status: OrdStatus
    """OrdStatus (FIX tag 39; OrdStatus; offset 36)."""
    cxl_rej_response_to: CxlRejResponseTo
    """CxlRejResponseTo (FIX tag 434; CxlRejResponseTo; offset 37)."""
    cxl_rej_reason: CxlRejReason
    """CxlRejReason (FIX tag 102; CxlRejReason; offset 38)."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 39)."""

    TEMPLATE_ID: ClassVar[int] = 105
    BLOCK_LENGTH: ClassVar[int] = 103
    MIN_BLOCK_LENGTH: ClassVar[int] = 103
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('orig_cl_ord_id', 'OrigClOrdID', 41, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('order_id', 'OrderID', 37, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 24, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 32, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('ord_status', 'OrdStatus', 39, 36, EnumCodec(OrdStatus, 'char', 'c', null=None)),
        FieldSpec('cxl_rej_response_to', 'CxlRejResponseTo', 434, 37, EnumCodec(CxlRejResponseTo, 'char', 'c', null=None)),
        FieldSpec('cxl_rej_reason', 'CxlRejReason', 102, 38, EnumCodec(CxlRejReason, 'uint8', 'B', null=None)),
        FieldSpec('text', 'Text', 58, 39, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class BusinessMessageReject(SbeMessage):
    """An application message was refused (FIX 35=j).

    SBE template 106, block length 87 bytes."""

    ref_seq_num: int = 0
    """RefSeqNum (FIX tag 45; uint64; offset 0)."""
    business_reject_ref_id: int = 0
    """BusinessRejectRefID (FIX tag 379; uint64; offset 8): ClOrdID of the refused message when known, else 0."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 16): Bitget code, 0 = none."""
    ref_msg_type: int = 0
    """RefMsgType (FIX tag 372; uint16; offset 20): Template id of the refused message."""
    business_reject_reason: BusinessRejectReason
    """BusinessRejectReason (FIX tag 380; BusinessRejectReason; offset 22)."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 23)."""

    TEMPLATE_ID: ClassVar[int] = 106
    BLOCK_LENGTH: ClassVar[int] = 87
    MIN_BLOCK_LENGTH: ClassVar[int] = 87
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('ref_seq_num', 'RefSeqNum', 45, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('business_reject_ref_id', 'BusinessRejectRefID', 379, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('ref_msg_type', 'RefMsgType', 372, 20, Prim('uint16', 'H', 2, null=None)),
        FieldSpec('business_reject_reason', 'BusinessRejectReason', 380, 22, EnumCodec(BusinessRejectReason, 'uint8', 'B', null=None)),
        FieldSpec('text', 'Text', 58, 23, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class NewOrderListOrder(SbeGroupEntry):
    """One entry of group Orders (id 73) of NewOrderList: The orders (FIX 73 NoOrders). Entry block length 49."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): ClOrdID (FIX 11): the strategy's id of this order, unique per session."""
    price: Decimal | None = None
    """Price (FIX tag 44; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 8): Price (FIX 44): limit price; None (null) for market orders."""
    order_qty: Decimal
    """OrderQty (FIX tag 38; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 17): OrderQty (FIX 38): quantity in base units."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 26): Symbol (FIX 55)."""
    category: Category
    """Category (id 5020; Category; offset 42): Product category of the symbol."""
    side: Side
    """Side (FIX tag 54; Side; offset 43): Side (FIX 54)."""
    ord_type: OrdType
    """OrdType (FIX tag 40; OrdType; offset 44): OrdType (FIX 40)."""
    time_in_force: TimeInForce
    """TimeInForce (FIX tag 59; TimeInForce; offset 45): TimeInForce (FIX 59)."""
    pos_side: PosSide
    """PosSide (id 5021; PosSide; offset 46): Position side in hedge mode (None in one-way mode)."""
    reduce_only: BooleanType
    """ReduceOnly (id 5022; BooleanType; offset 47): Reduce-only flag."""
    stp_mode: StpMode
    """StpMode (id 5023; StpMode; offset 48): Self-trade prevention mode."""

    BLOCK_LENGTH: ClassVar[int] = 49
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('price', 'Price', 44, 8, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('order_qty', 'OrderQty', 38, 17, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('symbol', 'Symbol', 55, 26, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 42, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 43, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('ord_type', 'OrdType', 40, 44, EnumCodec(OrdType, 'uint8', 'B', null=None)),
        FieldSpec('time_in_force', 'TimeInForce', 59, 45, EnumCodec(TimeInForce, 'uint8', 'B', null=None)),
        FieldSpec('pos_side', 'PosSide', 5021, 46, EnumCodec(PosSide, 'uint8', 'B', null=None)),
        FieldSpec('reduce_only', 'ReduceOnly', 5022, 47, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
        FieldSpec('stp_mode', 'StpMode', 5023, 48, EnumCodec(StpMode, 'uint8', 'B', null=None)),
    )


@dataclass(kw_only=True, slots=True)
class NewOrderList(SbeMessage):
    """NewOrderList (template 107, FIX 35=E): place a batch of orders of any length (the gateway splits it into exchange batches of at most 20). Answered by ListStatus (per item) and ExecutionReports.

    SBE template 107, block length 16 bytes."""

    list_id: int = 0
    """ListID (FIX tag 66; uint64; offset 0): ListID (FIX 66): the strategy's id of the batch, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    orders: list[NewOrderListOrder] = field(default_factory=list)
    """Group Orders (id 73): The orders (FIX 73 NoOrders)."""

    TEMPLATE_ID: ClassVar[int] = 107
    BLOCK_LENGTH: ClassVar[int] = 16
    MIN_BLOCK_LENGTH: ClassVar[int] = 16
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('list_id', 'ListID', 66, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('orders', 'Orders', 73, NewOrderListOrder, 49, max_entries=None),
    )


@dataclass(kw_only=True, slots=True)
class OrderCancelReplaceListOrder(SbeGroupEntry):
    """One entry of group Orders (id 73) of OrderCancelReplaceList: The modifications (FIX 73 NoOrders). Entry block length 53."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): ClOrdID (FIX 11): id of this modification (the order's new ClOrdID)."""
    orig_cl_ord_id: int = 0
    """OrigClOrdID (FIX tag 41; uint64; offset 8): OrigClOrdID (FIX 41): ClOrdID of the order to modify."""
    price: Decimal | None = None
    """Price (FIX tag 44; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 16): Price (FIX 44): new price; None keeps the current one."""
    order_qty: Decimal | None = None
    """OrderQty (FIX tag 38; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 25): OrderQty (FIX 38): new total quantity, required as in FIX 35=G; null refuses the item (OrderCancelReject Other, "OrderQty is required")."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 34): Symbol (FIX 55) of the order."""
    category: Category
    """Category (id 5020; Category; offset 50): Product category of the order."""
    side: Side
    """Side (FIX tag 54; Side; offset 51): Side (FIX 54) of the order."""
    auto_cancel: BooleanType
    """AutoCancel (id 5024; BooleanType; offset 52): Cancel the order if the modification fails."""

    BLOCK_LENGTH: ClassVar[int] = 53
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('orig_cl_ord_id', 'OrigClOrdID', 41, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('price', 'Price', 44, 16, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('order_qty', 'OrderQty', 38, 25, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('symbol', 'Symbol', 55, 34, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 50, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 51, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('auto_cancel', 'AutoCancel', 5024, 52, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
    )


@dataclass(kw_only=True, slots=True)
class OrderCancelReplaceList(SbeMessage):
    """OrderCancelReplaceList (template 108): modify a batch of orders (Bitget batch-modify-order). Answered by ListStatus and ExecutionReports.

    SBE template 108, block length 16 bytes."""

    list_id: int = 0
    """ListID (FIX tag 66; uint64; offset 0): ListID (FIX 66): the strategy's id of the batch, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    orders: list[OrderCancelReplaceListOrder] = field(default_factory=list)
    """Group Orders (id 73): The modifications (FIX 73 NoOrders)."""

    TEMPLATE_ID: ClassVar[int] = 108
    BLOCK_LENGTH: ClassVar[int] = 16
    MIN_BLOCK_LENGTH: ClassVar[int] = 16
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('list_id', 'ListID', 66, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('orders', 'Orders', 73, OrderCancelReplaceListOrder, 53, max_entries=None),
    )


@dataclass(kw_only=True, slots=True)
class OrderCancelListOrder(SbeGroupEntry):
    """One entry of group Orders (id 73) of OrderCancelList: The cancels (FIX 73 NoOrders). Entry block length 34."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): ClOrdID (FIX 11): id of this cancel."""
    orig_cl_ord_id: int = 0
    """OrigClOrdID (FIX tag 41; uint64; offset 8): OrigClOrdID (FIX 41): ClOrdID of the order to cancel."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 16): Symbol (FIX 55) of the order."""
    category: Category
    """Category (id 5020; Category; offset 32): Product category of the order."""
    side: Side
    """Side (FIX tag 54; Side; offset 33): Side (FIX 54) of the order."""

    BLOCK_LENGTH: ClassVar[int] = 34
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('orig_cl_ord_id', 'OrigClOrdID', 41, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 16, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 32, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 33, EnumCodec(Side, 'uint8', 'B', null=None)),
    )


@dataclass(kw_only=True, slots=True)
class OrderCancelList(SbeMessage):
    """OrderCancelList (template 109): cancel a batch of orders (Bitget cancel-batch). Answered by ListStatus and ExecutionReports.

    SBE template 109, block length 16 bytes."""

    list_id: int = 0
    """ListID (FIX tag 66; uint64; offset 0): ListID (FIX 66): the strategy's id of the batch, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    orders: list[OrderCancelListOrder] = field(default_factory=list)
    """Group Orders (id 73): The cancels (FIX 73 NoOrders)."""

    TEMPLATE_ID: ClassVar[int] = 109
    BLOCK_LENGTH: ClassVar[int] = 16
    MIN_BLOCK_LENGTH: ClassVar[int] = 16
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('list_id', 'ListID', 66, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('orders', 'Orders', 73, OrderCancelListOrder, 34, max_entries=None),
    )


@dataclass(kw_only=True, slots=True)
class ListStatusOrder(SbeGroupEntry):
    """One entry of group Orders (id 73) of ListStatus: The per-item results (FIX 73 NoOrders). Entry block length 86."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): ClOrdID (FIX 11) of the item."""
    order_id: int = 0
    """OrderID (FIX tag 37; uint64; offset 8): OrderID (FIX 37): Bitget orderId; 0 = none."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 16): Bitget numeric code; 0 = none."""
    item_status: ItemStatus
    """ItemStatus (id 5032; ItemStatus; offset 20): Accepted or rejected."""
    ord_rej_reason: OrdRejReason | None = None
    """OrdRejReason (FIX tag 103; OrdRejReason, optional (None = SBE null); offset 21): OrdRejReason (FIX 103): why; None unless rejected."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 22): Text (FIX 58): reason or exchange message."""

    BLOCK_LENGTH: ClassVar[int] = 86
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('order_id', 'OrderID', 37, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('item_status', 'ItemStatus', 5032, 20, EnumCodec(ItemStatus, 'uint8', 'B', null=None)),
        FieldSpec('ord_rej_reason', 'OrdRejReason', 103, 21, EnumCodec(OrdRejReason, 'uint8', 'B', null=255)),
        FieldSpec('text', 'Text', 58, 22, CharArray(64, 'UTF-8')),
    )


@dataclass(kw_only=True, slots=True)
class ListStatus(SbeMessage):
    """ListStatus (template 110, FIX 35=N): per-item results of a batch; a batch longer than one frame holds is answered by several ListStatus, the last with LastFragment = Yes.

    SBE template 110, block length 19 bytes."""

    list_id: int = 0
    """ListID (FIX tag 66; uint64; offset 0): ListID (FIX 66): the strategy's id of the batch, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    ref_msg_type: int = 0
    """RefMsgType (FIX tag 372; uint16; offset 16): RefMsgType (FIX 372): template id of the batch answered."""
    last_fragment: BooleanType
    """LastFragment (FIX tag 893; BooleanType; offset 18): LastFragment (FIX 893): Yes on the last ListStatus of the batch."""
    orders: list[ListStatusOrder] = field(default_factory=list)
    """Group Orders (id 73): The per-item results (FIX 73 NoOrders)."""

    TEMPLATE_ID: ClassVar[int] = 110
    BLOCK_LENGTH: ClassVar[int] = 19
    MIN_BLOCK_LENGTH: ClassVar[int] = 19
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('list_id', 'ListID', 66, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('ref_msg_type', 'RefMsgType', 372, 16, Prim('uint16', 'H', 2, null=None)),
        FieldSpec('last_fragment', 'LastFragment', 893, 18, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('orders', 'Orders', 73, ListStatusOrder, 86, max_entries=None),
    )


@dataclass(kw_only=True, slots=True)
class OrderMassCancelRequest(SbeMessage):
    """OrderMassCancelRequest (template 111, FIX 35=q): cancel the orders of a session, a symbol, a side or the whole account.

    SBE template 111, block length 35 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): ClOrdID (FIX 11): id of this request."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 16): Symbol (FIX 55): for type Symbol (and optionally Side); empty otherwise."""
    mass_cancel_request_type: MassCancelRequestType
    """MassCancelRequestType (FIX tag 530; MassCancelRequestType; offset 32): MassCancelRequestType (FIX 530): the scope."""
    category: Category | None = None
    """Category (id 5020; Category, optional (None = SBE null); offset 33): Product category filter; None = every category."""
    side: Side | None = None
    """Side (FIX tag 54; Side, optional (None = SBE null); offset 34): Side (FIX 54) for type Side; None otherwise."""

    TEMPLATE_ID: ClassVar[int] = 111
    BLOCK_LENGTH: ClassVar[int] = 35
    MIN_BLOCK_LENGTH: ClassVar[int] = 35
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 16, CharArray(16, 'US-ASCII')),
        FieldSpec('mass_cancel_request_type', 'MassCancelRequestType', 530, 32, EnumCodec(MassCancelRequestType, 'char', 'c', null=None)),
        FieldSpec('category', 'Category', 5020, 33, EnumCodec(Category, 'uint8', 'B', null=255)),
        FieldSpec('side', 'Side', 54, 34, EnumCodec(Side, 'uint8', 'B', null=255)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class OrderMassCancelReport(SbeMessage):
    """OrderMassCancelReport (template 112, FIX 35=r): the answer to an OrderMassCancelRequest (each canceled order also gets its ExecutionReport).

    SBE template 112, block length 91 bytes."""

    cl_ord_id: int = 0
    """ClOrdID (FIX tag 11; uint64; offset 0): ClOrdID (FIX 11) of the request."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    total_affected_orders: int = 0
    """TotalAffectedOrders (FIX tag 533; uint32; offset 16): TotalAffectedOrders (FIX 533): orders canceled."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 20): Bitget numeric code; 0 = none."""
    mass_cancel_request_type: MassCancelRequestType
    """MassCancelRequestType (FIX tag 530; MassCancelRequestType; offset 24): MassCancelRequestType (FIX 530) of the request."""
    mass_cancel_response: MassCancelResponse
    """MassCancelResponse (FIX tag 531; MassCancelResponse; offset 25): MassCancelResponse (FIX 531): scope applied, or Rejected."""
    mass_cancel_reject_reason: MassCancelRejectReason | None = None
    """MassCancelRejectReason (FIX tag 532; MassCancelRejectReason, optional (None = SBE null); offset 26): MassCancelRejectReason (FIX 532); None unless rejected."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 27): Text (FIX 58): reason or exchange message."""

    TEMPLATE_ID: ClassVar[int] = 112
    BLOCK_LENGTH: ClassVar[int] = 91
    MIN_BLOCK_LENGTH: ClassVar[int] = 91
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('cl_ord_id', 'ClOrdID', 11, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('total_affected_orders', 'TotalAffectedOrders', 533, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 20, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('mass_cancel_request_type', 'MassCancelRequestType', 530, 24, EnumCodec(MassCancelRequestType, 'char', 'c', null=None)),
        FieldSpec('mass_cancel_response', 'MassCancelResponse', 531, 25, EnumCodec(MassCancelResponse, 'char', 'c', null=None)),
        FieldSpec('mass_cancel_reject_reason', 'MassCancelRejectReason', 532, 26, EnumCodec(MassCancelRejectReason, 'uint8', 'B', null=255)),
        FieldSpec('text', 'Text', 58, 27, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class OrderMassStatusRequest(SbeMessage):
    """OrderMassStatusRequest (template 113, FIX 35=AF): the status of the orders of a session, a symbol or the account; answered by one ExecutionReport (ExecType OrderStatus) per order, then OrderMassStatusEnd.

    SBE template 113, block length 35 bytes."""

    mass_status_req_id: int = 0
    """MassStatusReqID (FIX tag 584; uint64; offset 0): MassStatusReqID (FIX 584): id of this request."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 16): Symbol (FIX 55) for type Symbol; empty otherwise."""
    mass_status_req_type: MassStatusReqType
    """MassStatusReqType (FIX tag 585; MassStatusReqType; offset 32): MassStatusReqType (FIX 585): the scope."""
    category: Category | None = None
    """Category (id 5020; Category, optional (None = SBE null); offset 33): Product category filter; None = every category."""
    refresh_from_exchange: BooleanType
    """RefreshFromExchange (id 5030; BooleanType; offset 34): Yes: refresh the tracker from unfilled-orders first."""

    TEMPLATE_ID: ClassVar[int] = 113
    BLOCK_LENGTH: ClassVar[int] = 35
    MIN_BLOCK_LENGTH: ClassVar[int] = 35
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('mass_status_req_id', 'MassStatusReqID', 584, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 16, CharArray(16, 'US-ASCII')),
        FieldSpec('mass_status_req_type', 'MassStatusReqType', 585, 32, EnumCodec(MassStatusReqType, 'uint8', 'B', null=None)),
        FieldSpec('category', 'Category', 5020, 33, EnumCodec(Category, 'uint8', 'B', null=255)),
        FieldSpec('refresh_from_exchange', 'RefreshFromExchange', 5030, 34, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class OrderMassStatusEnd(SbeMessage):
    """OrderMassStatusEnd (template 114): the end of the ExecutionReports answering an OrderMassStatusRequest (or its rejection).

    SBE template 114, block length 89 bytes."""

    mass_status_req_id: int = 0
    """MassStatusReqID (FIX tag 584; uint64; offset 0): MassStatusReqID (FIX 584) of the request."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    tot_num_reports: int = 0
    """TotNumReports (FIX tag 911; uint32; offset 16): TotNumReports (FIX 911): ExecutionReports sent for the request."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 20): Bitget numeric code of a failed refresh; 0 = none."""
    request_status: ItemStatus
    """RequestStatus (id 5031; ItemStatus; offset 24): Accepted (reports complete) or Rejected (see Text)."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 25): Text (FIX 58): reason."""

    TEMPLATE_ID: ClassVar[int] = 114
    BLOCK_LENGTH: ClassVar[int] = 89
    MIN_BLOCK_LENGTH: ClassVar[int] = 89
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('mass_status_req_id', 'MassStatusReqID', 584, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('tot_num_reports', 'TotNumReports', 911, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 20, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('request_status', 'RequestStatus', 5031, 24, EnumCodec(ItemStatus, 'uint8', 'B', null=None)),
        FieldSpec('text', 'Text', 58, 25, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class MovePositionsPosition(SbeGroupEntry):
    """One entry of group Positions (id 5070) of MovePositions: The positions (at most 10). Entry block length 26, at most 10 entries."""

    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 0): Symbol (FIX 55)."""
    side: Side
    """Side (FIX tag 54; Side; offset 16): Side (FIX 54) of the position (Bitget side)."""
    quantity: Decimal
    """Quantity (FIX tag 53; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 17): Quantity (FIX 53) to move, base units."""

    BLOCK_LENGTH: ClassVar[int] = 26
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('symbol', 'Symbol', 55, 0, CharArray(16, 'US-ASCII')),
        FieldSpec('side', 'Side', 54, 16, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('quantity', 'Quantity', 53, 17, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
    )


@dataclass(kw_only=True, slots=True)
class MovePositions(SbeMessage):
    """MovePositions (template 115): move up to 10 positions from one UID to another (Bitget move-positions; master account).

    SBE template 115, block length 33 bytes."""

    move_positions_id: int = 0
    """MovePositionsID (id 5033; uint64; offset 0): The strategy's id of the move, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    from_uid: int = 0
    """FromUID (id 5034; uint64; offset 16): Source UID."""
    to_uid: int = 0
    """ToUID (id 5035; uint64; offset 24): Target UID."""
    category: Category
    """Category (id 5020; Category; offset 32): Product category (USDT or USDC futures)."""
    positions: list[MovePositionsPosition] = field(default_factory=list)
    """Group Positions (id 5070): The positions (at most 10)."""

    TEMPLATE_ID: ClassVar[int] = 115
    BLOCK_LENGTH: ClassVar[int] = 33
    MIN_BLOCK_LENGTH: ClassVar[int] = 33
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('move_positions_id', 'MovePositionsID', 5033, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('from_uid', 'FromUID', 5034, 16, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('to_uid', 'ToUID', 5035, 24, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('category', 'Category', 5020, 32, EnumCodec(Category, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('positions', 'Positions', 5070, MovePositionsPosition, 26, max_entries=10),
    )


@dataclass(kw_only=True, slots=True)
class MovePositionsReportResult(SbeGroupEntry):
    """One entry of group Results (id 5071) of MovePositionsReport: Per-position results (empty when refused before sending). Entry block length 106, at most 10 entries."""

    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 0): Symbol (FIX 55)."""
    side: Side
    """Side (FIX tag 54; Side; offset 16): Side (FIX 54)."""
    close_order_id: int = 0
    """CloseOrderID (id 5037; uint64; offset 17): Bitget orderId of the close on FromUID; 0 = none."""
    close_exchange_code: int = 0
    """CloseExchangeCode (id 5038; uint32; offset 25): Bitget code of the close; 0 = success."""
    open_order_id: int = 0
    """OpenOrderID (id 5039; uint64; offset 29): Bitget orderId of the open on ToUID; 0 = none."""
    open_exchange_code: int = 0
    """OpenExchangeCode (id 5040; uint32; offset 37): Bitget code of the open; 0 = success."""
    item_status: ItemStatus
    """ItemStatus (id 5032; ItemStatus; offset 41): Accepted or rejected."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 42): Text (FIX 58): exchange message of a failed close or open."""

    BLOCK_LENGTH: ClassVar[int] = 106
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('symbol', 'Symbol', 55, 0, CharArray(16, 'US-ASCII')),
        FieldSpec('side', 'Side', 54, 16, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('close_order_id', 'CloseOrderID', 5037, 17, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('close_exchange_code', 'CloseExchangeCode', 5038, 25, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('open_order_id', 'OpenOrderID', 5039, 29, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('open_exchange_code', 'OpenExchangeCode', 5040, 37, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('item_status', 'ItemStatus', 5032, 41, EnumCodec(ItemStatus, 'uint8', 'B', null=None)),
        FieldSpec('text', 'Text', 58, 42, CharArray(64, 'UTF-8')),
    )


@dataclass(kw_only=True, slots=True)
class MovePositionsReport(SbeMessage):
    """MovePositionsReport (template 116): the answer to MovePositions, with the close/open result per position.

    SBE template 116, block length 86 bytes."""

    move_positions_id: int = 0
    """MovePositionsID (id 5033; uint64; offset 0): The strategy's id of the move, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 16): Bitget numeric code; 0 = none."""
    request_status: ItemStatus
    """RequestStatus (id 5031; ItemStatus; offset 20): Accepted or Rejected."""
    move_reject_reason: MovePositionsRejectReason | None = None
    """MoveRejectReason (id 5036; MovePositionsRejectReason, optional (None = SBE null); offset 21): The rule broken or the exchange's refusal; None unless rejected."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 22): Text (FIX 58): reason."""
    results: list[MovePositionsReportResult] = field(default_factory=list)
    """Group Results (id 5071): Per-position results (empty when refused before sending)."""

    TEMPLATE_ID: ClassVar[int] = 116
    BLOCK_LENGTH: ClassVar[int] = 86
    MIN_BLOCK_LENGTH: ClassVar[int] = 86
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('move_positions_id', 'MovePositionsID', 5033, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('request_status', 'RequestStatus', 5031, 20, EnumCodec(ItemStatus, 'uint8', 'B', null=None)),
        FieldSpec('move_reject_reason', 'MoveRejectReason', 5036, 21, EnumCodec(MovePositionsRejectReason, 'uint8', 'B', null=255)),
        FieldSpec('text', 'Text', 58, 22, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('results', 'Results', 5071, MovePositionsReportResult, 106, max_entries=10),
    )


@dataclass(kw_only=True, slots=True)
class SetLeverage(SbeMessage):
    """SetLeverage (template 117): set the leverage of a symbol (futures) or a coin (margin); operator request.

    SBE template 117, block length 59 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 16): Symbol (FIX 55) for futures; empty for margin."""
    coin: str = ""
    """Coin (id 5042; Symbol: 16 bytes US-ASCII, NUL-padded; offset 32): Coin for margin; empty for futures."""
    leverage: Decimal
    """Leverage (id 5043; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 48): New leverage."""
    category: Category
    """Category (id 5020; Category; offset 57): Product category."""
    pos_side: PosSide
    """PosSide (id 5021; PosSide; offset 58): Position side in hedge mode (None = both)."""

    TEMPLATE_ID: ClassVar[int] = 117
    BLOCK_LENGTH: ClassVar[int] = 59
    MIN_BLOCK_LENGTH: ClassVar[int] = 59
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 16, CharArray(16, 'US-ASCII')),
        FieldSpec('coin', 'Coin', 5042, 32, CharArray(16, 'US-ASCII')),
        FieldSpec('leverage', 'Leverage', 5043, 48, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('category', 'Category', 5020, 57, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('pos_side', 'PosSide', 5021, 58, EnumCodec(PosSide, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class SetHoldMode(SbeMessage):
    """SetHoldMode (template 118): one-way or hedge mode (no positions or orders allowed); operator request.

    SBE template 118, block length 17 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    hold_mode: HoldMode
    """HoldMode (id 5044; HoldMode; offset 16): The new position mode."""

    TEMPLATE_ID: ClassVar[int] = 118
    BLOCK_LENGTH: ClassVar[int] = 17
    MIN_BLOCK_LENGTH: ClassVar[int] = 17
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('hold_mode', 'HoldMode', 5044, 16, EnumCodec(HoldMode, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class MaxOpenAvailableRequest(SbeMessage):
    """MaxOpenAvailableRequest (template 119): the largest order that can be opened (Bitget max-open-available).

    SBE template 119, block length 53 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    price: Decimal | None = None
    """Price (FIX tag 44; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 16): Price (FIX 44); None for market."""
    order_qty: Decimal | None = None
    """OrderQty (FIX tag 38; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 25): OrderQty (FIX 38); None when unknown."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 34): Symbol (FIX 55)."""
    category: Category
    """Category (id 5020; Category; offset 50): Product category."""
    side: Side
    """Side (FIX tag 54; Side; offset 51): Side (FIX 54)."""
    ord_type: OrdType
    """OrdType (FIX tag 40; OrdType; offset 52): OrdType (FIX 40)."""

    TEMPLATE_ID: ClassVar[int] = 119
    BLOCK_LENGTH: ClassVar[int] = 53
    MIN_BLOCK_LENGTH: ClassVar[int] = 53
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('price', 'Price', 44, 16, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('order_qty', 'OrderQty', 38, 25, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('symbol', 'Symbol', 55, 34, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 50, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('side', 'Side', 54, 51, EnumCodec(Side, 'uint8', 'B', null=None)),
        FieldSpec('ord_type', 'OrdType', 40, 52, EnumCodec(OrdType, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class AccountSettingsRequest(SbeMessage):
    """AccountSettingsRequest (template 120): the account settings (hold mode, leverage of a symbol).

    SBE template 120, block length 33 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 16): Symbol (FIX 55) whose leverage is wanted; empty = none."""
    category: Category | None = None
    """Category (id 5020; Category, optional (None = SBE null); offset 32): Category of the symbol; None with an empty symbol."""

    TEMPLATE_ID: ClassVar[int] = 120
    BLOCK_LENGTH: ClassVar[int] = 33
    MIN_BLOCK_LENGTH: ClassVar[int] = 33
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 16, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 32, EnumCodec(Category, 'uint8', 'B', null=255)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class AccountRequestReport(SbeMessage):
    """AccountRequestReport (template 121): the answer to SetLeverage, SetHoldMode, MaxOpenAvailableRequest or AccountSettingsRequest.

    SBE template 121, block length 140 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 16): Bitget numeric code; 0 = none."""
    account_request_type: AccountRequestType
    """AccountRequestType (id 5045; AccountRequestType; offset 20): The request answered."""
    request_status: ItemStatus
    """RequestStatus (id 5031; ItemStatus; offset 21): Accepted or Rejected."""
    hold_mode: HoldMode | None = None
    """HoldMode (id 5044; HoldMode, optional (None = SBE null); offset 22): Hold mode (settings, set-hold-mode); None otherwise."""
    leverage: Decimal | None = None
    """Leverage (id 5043; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 23): Leverage (settings, set-leverage); None otherwise."""
    available: Decimal | None = None
    """Available (id 5056; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 32): Max-open-available: available; None otherwise."""
    max_buy_open: Decimal | None = None
    """MaxBuyOpen (id 5047; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 41): Max-open-available: maxBuyOpen; None otherwise."""
    max_sell_open: Decimal | None = None
    """MaxSellOpen (id 5048; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 50): Max-open-available: maxSellOpen; None otherwise."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 59): Symbol (FIX 55) of the request; empty if none."""
    category: Category | None = None
    """Category (id 5020; Category, optional (None = SBE null); offset 75): Category of the request; None if none."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 76): Text (FIX 58): reason or exchange message."""

    TEMPLATE_ID: ClassVar[int] = 121
    BLOCK_LENGTH: ClassVar[int] = 140
    MIN_BLOCK_LENGTH: ClassVar[int] = 140
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('account_request_type', 'AccountRequestType', 5045, 20, EnumCodec(AccountRequestType, 'uint8', 'B', null=None)),
        FieldSpec('request_status', 'RequestStatus', 5031, 21, EnumCodec(ItemStatus, 'uint8', 'B', null=None)),
        FieldSpec('hold_mode', 'HoldMode', 5044, 22, EnumCodec(HoldMode, 'uint8', 'B', null=255)),
        FieldSpec('leverage', 'Leverage', 5043, 23, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('available', 'Available', 5056, 32, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('max_buy_open', 'MaxBuyOpen', 5047, 41, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('max_sell_open', 'MaxSellOpen', 5048, 50, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('symbol', 'Symbol', 55, 59, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 75, EnumCodec(Category, 'uint8', 'B', null=255)),
        FieldSpec('text', 'Text', 58, 76, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class PositionReport(SbeMessage):
    """PositionReport (template 122, FIX 35=AP): a position of the account (position channel update).

    SBE template 122, block length 98 bytes."""

    pos_req_id: int = 0
    """PosReqID (FIX tag 710; uint64; offset 0): PosReqID (FIX 710): the request answered; 0 = unsolicited update."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    symbol: str = ""
    """Symbol (FIX tag 55; Symbol: 16 bytes US-ASCII, NUL-padded; offset 16): Symbol (FIX 55)."""
    category: Category
    """Category (id 5020; Category; offset 32): Product category."""
    pos_side: PosSide
    """PosSide (id 5021; PosSide; offset 33): Position side (None in one-way mode)."""
    hold_mode: HoldMode | None = None
    """HoldMode (id 5044; HoldMode, optional (None = SBE null); offset 34): Hold mode; None when unknown."""
    position_size: Decimal
    """PositionSize (id 5049; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 35): Size (Bitget size), base units; 0 = closed."""
    avg_px: Decimal | None = None
    """AvgPx (FIX tag 6; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 44): AvgPx (FIX 6): average entry price; None when flat."""
    unrealised_pnl: Decimal | None = None
    """UnrealisedPnL (id 5050; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 53): Unrealised PnL."""
    realised_pnl: Decimal | None = None
    """RealisedPnL (id 5051; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 62): Current realised PnL (Bitget curRealisedPnl)."""
    leverage: Decimal | None = None
    """Leverage (id 5043; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 71): Leverage."""
    mark_price: Decimal | None = None
    """MarkPrice (id 5052; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 80): Mark price."""
    liquidation_price: Decimal | None = None
    """LiquidationPrice (id 5053; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 89): Liquidation price."""

    TEMPLATE_ID: ClassVar[int] = 122
    BLOCK_LENGTH: ClassVar[int] = 98
    MIN_BLOCK_LENGTH: ClassVar[int] = 98
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('pos_req_id', 'PosReqID', 710, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('symbol', 'Symbol', 55, 16, CharArray(16, 'US-ASCII')),
        FieldSpec('category', 'Category', 5020, 32, EnumCodec(Category, 'uint8', 'B', null=None)),
        FieldSpec('pos_side', 'PosSide', 5021, 33, EnumCodec(PosSide, 'uint8', 'B', null=None)),
        FieldSpec('hold_mode', 'HoldMode', 5044, 34, EnumCodec(HoldMode, 'uint8', 'B', null=255)),
        FieldSpec('position_size', 'PositionSize', 5049, 35, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('avg_px', 'AvgPx', 6, 44, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('unrealised_pnl', 'UnrealisedPnL', 5050, 53, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('realised_pnl', 'RealisedPnL', 5051, 62, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('leverage', 'Leverage', 5043, 71, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('mark_price', 'MarkPrice', 5052, 80, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
        FieldSpec('liquidation_price', 'LiquidationPrice', 5053, 89, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class AccountBalanceReport(SbeMessage):
    """AccountBalanceReport (template 123): the balance of one coin of the account (account channel update).

    SBE template 123, block length 69 bytes."""

    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 0): TransactTime (FIX 60): UTC ns."""
    coin: str = ""
    """Coin (id 5042; Symbol: 16 bytes US-ASCII, NUL-padded; offset 8): Coin, e.g. USDT."""
    equity: Decimal
    """Equity (id 5054; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 24): Equity."""
    balance: Decimal
    """Balance (id 5055; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 33): Balance."""
    available: Decimal
    """Available (id 5056; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 42): Available."""
    locked: Decimal
    """Locked (id 5057; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent; offset 51): Locked (frozen)."""
    unrealised_pnl: Decimal | None = None
    """UnrealisedPnL (id 5050; Decimal64: exact decimal, int64 mantissa x 10^int8 exponent, optional (None = SBE null); offset 60): Unrealised PnL of the coin; None when not given."""

    TEMPLATE_ID: ClassVar[int] = 123
    BLOCK_LENGTH: ClassVar[int] = 69
    MIN_BLOCK_LENGTH: ClassVar[int] = 69
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('transact_time', 'TransactTime', 60, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('coin', 'Coin', 5042, 8, CharArray(16, 'US-ASCII')),
        FieldSpec('equity', 'Equity', 5054, 24, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('balance', 'Balance', 5055, 33, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('available', 'Available', 5056, 42, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('locked', 'Locked', 5057, 51, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=False)),
        FieldSpec('unrealised_pnl', 'UnrealisedPnL', 5050, 60, DecimalCodec('<qb', 9, null_mantissa=-9223372036854775808, optional=True)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class RateBudgetReportBucket(SbeGroupEntry):
    """One entry of group Buckets (id 5072) of RateBudgetReport: The buckets. Entry block length 34."""

    bucket_name: str = ""
    """BucketName (id 5058; Symbol: 16 bytes US-ASCII, NUL-padded; offset 0): Bucket name (ASCII, at most 16 bytes), e.g. place-order."""
    endpoint_id: int = 0
    """EndpointID (id 5059; uint16; offset 16): Gateway id of the endpoint or connection the bucket limits."""
    limit: int = 0
    """Limit (id 5060; uint32; offset 18): Tokens per window."""
    remaining: int = 0
    """Remaining (id 5061; uint32; offset 22): Tokens left in the current window."""
    reset_time: int = 0
    """ResetTime (id 5062; uint64; offset 26): When the bucket is full again, UTC ns."""

    BLOCK_LENGTH: ClassVar[int] = 34
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('bucket_name', 'BucketName', 5058, 0, CharArray(16, 'US-ASCII')),
        FieldSpec('endpoint_id', 'EndpointID', 5059, 16, Prim('uint16', 'H', 2, null=None)),
        FieldSpec('limit', 'Limit', 5060, 18, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('remaining', 'Remaining', 5061, 22, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('reset_time', 'ResetTime', 5062, 26, Prim('uint64', 'Q', 8, null=None)),
    )


@dataclass(kw_only=True, slots=True)
class RateBudgetReport(SbeMessage):
    """RateBudgetReport (template 124): the current rate budget of the session's account, per bucket.

    SBE template 124, block length 16 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The RateBudgetRequest answered; 0 = sent unasked (a request refused or queued for want of tokens)."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    buckets: list[RateBudgetReportBucket] = field(default_factory=list)
    """Group Buckets (id 5072): The buckets."""

    TEMPLATE_ID: ClassVar[int] = 124
    BLOCK_LENGTH: ClassVar[int] = 16
    MIN_BLOCK_LENGTH: ClassVar[int] = 16
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = (
        GroupSpec('buckets', 'Buckets', 5072, RateBudgetReportBucket, 34, max_entries=None),
    )


@dataclass(kw_only=True, slots=True)
class KillSwitchRequest(SbeMessage):
    """KillSwitchRequest (template 125): operator command: cancel every open order in scope and refuse new orders (Activate), or accept them again (Release).

    SBE template 125, block length 18 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    kill_switch_scope: KillSwitchScope
    """KillSwitchScope (id 5063; KillSwitchScope; offset 16): The session's account, or every account."""
    kill_switch_action: KillSwitchAction
    """KillSwitchAction (id 5064; KillSwitchAction; offset 17): Activate or Release."""

    TEMPLATE_ID: ClassVar[int] = 125
    BLOCK_LENGTH: ClassVar[int] = 18
    MIN_BLOCK_LENGTH: ClassVar[int] = 18
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('kill_switch_scope', 'KillSwitchScope', 5063, 16, EnumCodec(KillSwitchScope, 'uint8', 'B', null=None)),
        FieldSpec('kill_switch_action', 'KillSwitchAction', 5064, 17, EnumCodec(KillSwitchAction, 'uint8', 'B', null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class KillSwitchReport(SbeMessage):
    """KillSwitchReport (template 126): the answer to a KillSwitchRequest (each canceled order also gets its ExecutionReport).

    SBE template 126, block length 92 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""
    total_affected_orders: int = 0
    """TotalAffectedOrders (FIX tag 533; uint32; offset 16): TotalAffectedOrders (FIX 533): orders canceled."""
    active: BooleanType
    """Active (id 5065; BooleanType; offset 20): Yes while the kill switch is on."""
    request_status: ItemStatus
    """RequestStatus (id 5031; ItemStatus; offset 21): Accepted or Rejected."""
    kill_switch_scope: KillSwitchScope
    """KillSwitchScope (id 5063; KillSwitchScope; offset 22): The scope of the request."""
    kill_switch_action: KillSwitchAction
    """KillSwitchAction (id 5064; KillSwitchAction; offset 23): The action of the request."""
    exchange_code: int = 0
    """ExchangeCode (id 5025; uint32; offset 24): Bitget numeric code of a failed cancel; 0 = none."""
    text: str = ""
    """Text (FIX tag 58; Text: 64 bytes UTF-8, NUL-padded; offset 28): Text (FIX 58): reason."""

    TEMPLATE_ID: ClassVar[int] = 126
    BLOCK_LENGTH: ClassVar[int] = 92
    MIN_BLOCK_LENGTH: ClassVar[int] = 92
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('total_affected_orders', 'TotalAffectedOrders', 533, 16, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('active', 'Active', 5065, 20, EnumCodec(BooleanType, 'uint8', 'B', null=None)),
        FieldSpec('request_status', 'RequestStatus', 5031, 21, EnumCodec(ItemStatus, 'uint8', 'B', null=None)),
        FieldSpec('kill_switch_scope', 'KillSwitchScope', 5063, 22, EnumCodec(KillSwitchScope, 'uint8', 'B', null=None)),
        FieldSpec('kill_switch_action', 'KillSwitchAction', 5064, 23, EnumCodec(KillSwitchAction, 'uint8', 'B', null=None)),
        FieldSpec('exchange_code', 'ExchangeCode', 5025, 24, Prim('uint32', 'I', 4, null=None)),
        FieldSpec('text', 'Text', 58, 28, CharArray(64, 'UTF-8')),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


@dataclass(kw_only=True, slots=True)
class RateBudgetRequest(SbeMessage):
    """RateBudgetRequest (template 127): ask for the current rate budget of the session's account; answered by RateBudgetReport.

    SBE template 127, block length 16 bytes."""

    request_id: int = 0
    """RequestID (id 5041; uint64; offset 0): The strategy's id of this request, unique per session."""
    transact_time: int = 0
    """TransactTime (FIX tag 60; uint64; offset 8): TransactTime (FIX 60): UTC ns."""

    TEMPLATE_ID: ClassVar[int] = 127
    BLOCK_LENGTH: ClassVar[int] = 16
    MIN_BLOCK_LENGTH: ClassVar[int] = 16
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec('request_id', 'RequestID', 5041, 0, Prim('uint64', 'Q', 8, null=None)),
        FieldSpec('transact_time', 'TransactTime', 60, 8, Prim('uint64', 'Q', 8, null=None)),
    )
    GROUPS: ClassVar[tuple[GroupSpec, ...]] = ()


MESSAGES: dict[int, type[SbeMessage]] = {
    1: Negotiate,
    2: NegotiationResponse,
    3: NegotiationReject,
    4: Establish,
    5: EstablishmentAck,
    6: EstablishmentReject,
    7: Sequence,
    8: Terminate,
    9: RetransmitRequest,
    10: Retransmission,
    11: RetransmitReject,
    12: NotApplied,
    101: NewOrderSingle,
    102: OrderCancelRequest,
    103: OrderCancelReplaceRequest,
    104: ExecutionReport,
    105: OrderCancelReject,
    106: BusinessMessageReject,
    107: NewOrderList,
    108: OrderCancelReplaceList,
    109: OrderCancelList,
    110: ListStatus,
    111: OrderMassCancelRequest,
    112: OrderMassCancelReport,
    113: OrderMassStatusRequest,
    114: OrderMassStatusEnd,
    115: MovePositions,
    116: MovePositionsReport,
    117: SetLeverage,
    118: SetHoldMode,
    119: MaxOpenAvailableRequest,
    120: AccountSettingsRequest,
    121: AccountRequestReport,
    122: PositionReport,
    123: AccountBalanceReport,
    124: RateBudgetReport,
    125: KillSwitchRequest,
    126: KillSwitchReport,
    127: RateBudgetRequest,
}
"""Every message class of the schema by template id."""

ENUMS: dict[str, type[enum.Enum]] = {
    'Side': Side,
    'OrdType': OrdType,
    'TimeInForce': TimeInForce,
    'Category': Category,
    'PosSide': PosSide,
    'BooleanType': BooleanType,
    'StpMode': StpMode,
    'ExecType': ExecType,
    'OrdStatus': OrdStatus,
    'OrdRejReason': OrdRejReason,
    'CxlRejResponseTo': CxlRejResponseTo,
    'CxlRejReason': CxlRejReason,
    'BusinessRejectReason': BusinessRejectReason,
    'FlowType': FlowType,
    'NegotiationRejectCode': NegotiationRejectCode,
    'EstablishmentRejectCode': EstablishmentRejectCode,
    'TerminationCode': TerminationCode,
    'RetransmitRejectCode': RetransmitRejectCode,
    'ItemStatus': ItemStatus,
    'MassCancelRequestType': MassCancelRequestType,
    'MassCancelResponse': MassCancelResponse,
    'MassCancelRejectReason': MassCancelRejectReason,
    'MassStatusReqType': MassStatusReqType,
    'KillSwitchScope': KillSwitchScope,
    'KillSwitchAction': KillSwitchAction,
    'HoldMode': HoldMode,
    'AccountRequestType': AccountRequestType,
    'MovePositionsRejectReason': MovePositionsRejectReason,
}
"""Every enum of the schema by schema name."""
