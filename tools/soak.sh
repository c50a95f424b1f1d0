#!/usr/bin/env bash
# The soak test (tests/soak.rs) longer than ctest runs it: every count multiplied by SCALE
# (default 10: ~9,500 runs — sequential, 50 concurrent dialogs × 5 rounds, aborts at random
# moments — and 200 MCP stdio servers added and removed). It fails when the process does not
# return to the file descriptors, threads and child processes it held before, when idle pooled
# connections stay open longer than 40 s, or when the resident set grew by 64 MiB or more.
#
#   tools/soak.sh [SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
VI_SOAK_SCALE=${1:-10} VI_PYTHON="$PWD/.venv/bin/python" \
    cargo test --release --test soak -- --ignored --nocapture
