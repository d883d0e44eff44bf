"""Python strategy client of the Bitget order gateway.

SOFH framing, an SBE 1.0 codec generated from the gateway's schema ``bgw.xml`` (module
:mod:`bgw_client.messages`: one dataclass per message, one :class:`enum.Enum` per enum), and a
FIXP session (Negotiate, Establish, keepalive, retransmission, Terminate) with an asyncio API
(:class:`AsyncClient`) and a blocking one (:class:`Client`).

Units: times are ``int`` UTC nanoseconds since the Unix epoch; prices and quantities are exact
:class:`decimal.Decimal` (the SBE ``mantissa x 10^exponent``); optional fields are ``None``
when the gateway sends the SBE null.
"""

from .aio import (AsyncClient, ClOrdIdSource, EpochSeq, OrderSpec, PreviousEpochMessages,
                  is_final, now_ns)
from .errors import (BgwError, ConnectionClosed, DecodeError, EncodeError,
                     EstablishmentRejected, FrameError, KeepaliveTimeout, NegotiationRejected,
                     SessionError, SessionRollover, Terminated)
from .messages import *  # noqa: F401,F403  (every message class and enum of the schema)
from .messages import ENUMS, MESSAGES
from .sync import Client
from .wire import (FrameReader, decimal_from_sbe, decimal_to_sbe, decode, encode,
                   encode_frame, frame)

__version__ = "0.1.0"

__all__ = [
    "AsyncClient", "Client", "ClOrdIdSource", "EpochSeq", "OrderSpec", "PreviousEpochMessages",
    "is_final", "now_ns",
    "BgwError", "ConnectionClosed", "DecodeError", "EncodeError", "EstablishmentRejected",
    "FrameError", "KeepaliveTimeout", "NegotiationRejected", "SessionError", "SessionRollover",
    "Terminated",
    "FrameReader", "decimal_from_sbe", "decimal_to_sbe", "decode", "encode", "encode_frame",
    "frame", "MESSAGES", "ENUMS",
    *[c.__name__ for c in MESSAGES.values()],
    *ENUMS.keys(),
]
