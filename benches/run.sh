#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds Release into build-bench/ (with the benchmark executables and the scripted server)
# and runs every benchmark, printing the results table (BENCHMARKS.md).
#
#   benches/run.sh [--runs N] [--quick] [--only stream,latency,memory,values,core]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="${VI_BENCH_BUILD_DIR:-$ROOT/build-bench}"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      -DVISINDIGO_AGENT_BENCHMARKS=ON >/dev/null
cmake --build "$BUILD"
CARGO_TARGET_DIR="$BUILD/cargo" cargo build -q --release -p vi-scripted-server --bins \
      --manifest-path "$ROOT/Cargo.toml"
PY="$ROOT/.venv/bin/python"
[ -x "$PY" ] || PY=python3
exec "$PY" "$ROOT/benches/run.py" "$BUILD" --json "$BUILD/bench-results.json" "$@"
