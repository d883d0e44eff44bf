"""Fixtures: the gateway under test (``BGW_GATEWAY=host:port``, set by ``clients/python/test.sh``)
and its sessions (1-13 trading, credentials ``py-secret-<id>``; 20 operator)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO_SCHEMA = Path(os.environ.get("BGW_SCHEMA", HERE.parents[2] / "codec" / "schema" / "bgw.xml"))


def gateway_addr() -> tuple[str, int] | None:
    addr = os.environ.get("BGW_GATEWAY")
    if not addr:
        return None
    host, port = addr.rsplit(":", 1)
    return host, int(port)


@pytest.fixture(scope="session")
def gateway() -> tuple[str, int]:
    """(host, port) of the running gateway; skips (or fails under test.sh) without one."""
    addr = gateway_addr()
    if addr is None:
        if os.environ.get("BGW_REQUIRE_GATEWAY") == "1":
            pytest.fail("BGW_GATEWAY is not set")
        pytest.skip("no gateway: run clients/python/test.sh (sets BGW_GATEWAY=host:port)")
    return addr


def creds(session_id: int) -> str:
    """Credentials of a test session in the gateway configuration written by test.sh."""
    return "py-operator" if session_id == 20 else f"py-secret-{session_id}"
