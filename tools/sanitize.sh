#!/usr/bin/env bash
# The C and C++ suites (QtTest, the C ABI programs) under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer: the `asan` preset (the Rust library itself is not instrumented;
# its own checks are cargo test and tools/fuzz.sh). CI runs it after tools/test.sh.
#
#   tools/sanitize.sh          (build dir: $BUILD_DIR, default build-asan)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-asan}
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
cmake --preset asan -B "$build" -DVI_PYTHON="$PWD/.venv/bin/python" >/dev/null
cmake --build "$build"
# Every C and C++ test; cargo's own suite and the install checks (which build other projects
# without the sanitizers) run in tools/test.sh.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0"
ctest --test-dir "$build" --output-on-failure -j 2 -R '^(tst_|c_header_check_|example_)'
