"""Exceptions of the client. Every one derives from :class:`BgwError`."""

from __future__ import annotations

from typing import Any


class BgwError(Exception):
    """Base of every error raised by :mod:`bgw_client`."""


class EncodeError(BgwError, ValueError):
    """A value the schema cannot carry (out of range, too long, invalid enum, missing)."""


class DecodeError(BgwError):
    """A well-framed message from the gateway that does not decode.

    The frame has been consumed and the connection stays usable: the session's numbering
    counted it if it was an application message. ``template_id`` is the header's templateId
    when it could be read, ``payload`` the raw SBE bytes when known.
    """

    def __init__(self, message: str, *, template_id: int | None = None,
                 payload: bytes | None = None) -> None:
        super().__init__(message)
        self.template_id = template_id
        self.payload = payload


class FrameError(BgwError):
    """A broken SOFH frame (bad encoding type, length out of bounds): the byte stream cannot be
    resynchronised, so the client closes the connection."""


class SessionError(BgwError):
    """The session cannot continue (or could not be started)."""


class NegotiationRejected(SessionError):
    """The gateway answered Negotiate with NegotiationReject (``reject`` holds it)."""

    def __init__(self, reject: Any) -> None:
        super().__init__(f"negotiation rejected: {reject.code.name}: {reject.reason}")
        self.reject = reject


class EstablishmentRejected(SessionError):
    """The gateway answered Establish with EstablishmentReject (``reject`` holds it)."""

    def __init__(self, reject: Any) -> None:
        super().__init__(f"establishment rejected: {reject.code.name}: {reject.reason}")
        self.reject = reject


class Terminated(SessionError):
    """The gateway ended the session with Terminate (``terminate`` holds it, when received)."""

    def __init__(self, terminate: Any = None, message: str | None = None) -> None:
        if message is None:
            message = (f"terminated: {terminate.code.name}: {terminate.reason}"
                       if terminate is not None else "terminated")
        super().__init__(message)
        self.terminate = terminate


class SessionRollover(Terminated):
    """The gateway ended the session's epoch (Terminate with code SessionRollover, schema
    version 1): a scheduled rollover. Nothing is wrong; connect again (``session_ver_id`` 0, or
    the new epoch) and the sequence numbers of both flows and the ClOrdID space start afresh.
    Orders open at the rollover stay open and keep reporting into the new epoch. A
    :class:`Terminated`, so code that handles the end of a session handles it too."""


class ConnectionClosed(SessionError):
    """The connection is closed (by the gateway, by :meth:`close`, or after an error)."""


class KeepaliveTimeout(SessionError):
    """The gateway was silent for three keepalive intervals; the connection was closed."""
