#!/usr/bin/env bash
# Regenerates src/bgw_client/messages.py and the shipped src/bgw_client/bgw.xml from the
# repository's schema codec/schema/bgw.xml (tests/test_schema.py fails until this is run).
# codegen.py runs as a plain script (standard library only), so a stale or broken
# messages.py never stops its own regeneration.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SCHEMA="$HERE/../../codec/schema/bgw.xml"
OUT="$HERE/src/bgw_client/messages.py"
"${PYTHON:-python3}" "$HERE/src/bgw_client/codegen.py" "$SCHEMA" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cp "$SCHEMA" "$HERE/src/bgw_client/bgw.xml"
echo "regenerated src/bgw_client/messages.py and bgw.xml from codec/schema/bgw.xml"
