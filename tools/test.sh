#!/usr/bin/env bash
# The project's one test command (README, "Run the tests"; .ci/run calls exactly this).
# Makes the Python venv with the real peers the tests use (the openai SDK's request types),
# then configures a fresh optimised build, builds everything and runs every test through ctest:
# cargo test (core, C ABI, run loop against the scripted server), the QtTest suites, the C ABI
# and header checks, the install + find_package consumer check, and the openai-SDK validation of
# every request body the run tests recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
# The SDK of Anthropic's older API version, beside the venv's own (tests/validate_request_bodies.py).
if [ ! -d .venv/anthropic-2023-06-01/anthropic ]; then
    .venv/bin/pip install --quiet --disable-pip-version-check --target .venv/anthropic-2023-06-01 \
        -r tests/requirements-anthropic-2023-06-01.txt
fi
# The npm peers (tests/npm: the MCP reference server), exactly as the lock file says.
if [ ! -d tests/npm/node_modules ] || [ tests/npm/package-lock.json -nt tests/npm/node_modules ]; then
    npm ci --prefix tests/npm --no-audit --no-fund --silent
fi
cmake -S . -B "$build" -G Ninja -DVI_PYTHON="$PWD/.venv/bin/python"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure
