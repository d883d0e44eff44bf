"""The examples run against the gateway and end with a filled order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import creds

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("script,session", [("place_order.py", 11), ("place_order_async.py", 12)])
def test_example(gateway: tuple[str, int], script: str, session: int) -> None:
    out = subprocess.run([sys.executable, str(EXAMPLES / script), f"{gateway[0]}:{gateway[1]}",
                          str(session), creds(session)], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    print(out)
    lines = out.strip().splitlines()
    assert lines[0].startswith("NEW NEW None None 0 0.01 None")
    assert lines[-1].startswith("FILL FILLED ") and lines[-1].split()[4:6] == ["0.01", "0"]
