#!/usr/bin/env bash
# Runs every coverage-guided fuzz target for SECONDS each (default 60) and fails on the first
# crash, panic, differential mismatch, leak, timeout (a single input slower than 10 s: the
# linear-time targets) or memory blow-up:
# * the Rust targets, fuzz/fuzz_targets/*.rs (libFuzzer through cargo-fuzz);
# * the C++ target jsonconfig, fuzz/cpp/jsonconfig.cpp (cpp/Utility/JsonConfig.cpp against
#   QJsonDocument), built here with clang++ -fsanitize=fuzzer,address,undefined against Qt6Core.
#
#   tools/fuzz.sh [SECONDS] [TARGET ...]
#
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP=1 gives them to the stable toolchain. The
# corpus grows in fuzz/corpus/<target>/ from the committed seeds in fuzz/seeds/<target>/ (new
# finds stay local; add an interesting one to the seeds by hand); a failing input is kept in
# fuzz/artifacts/<target>/ and replays with `RUSTC_BOOTSTRAP=1 cargo fuzz run <target> <file>`
# (Rust) or `fuzz/target/cpp/jsonconfig <file>` (C++) from the repository root. After each run
# the coverage the corpus reaches is printed ("cov:" edges, "ft:" features).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
export PATH="$HOME/.cargo/bin:$PATH"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
    targets+=(jsonconfig)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    echo "== $target: ${seconds} s"
    # New inputs go to fuzz/corpus/<target> (local); fuzz/seeds/<target> is the committed start.
    status=0
    if [ "$target" = jsonconfig ]; then
        mkdir -p fuzz/target/cpp
        # shellcheck disable=SC2046  # pkg-config's flags are words
        clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            -fPIC -DVISINDIGO_AGENT_STATIC -Iinclude $(pkg-config --cflags Qt6Core) \
            fuzz/cpp/jsonconfig.cpp cpp/Utility/JsonConfig.cpp $(pkg-config --libs Qt6Core) \
            -o fuzz/target/cpp/jsonconfig
        fuzz/target/cpp/jsonconfig -artifact_prefix="fuzz/artifacts/$target/" "${options[@]}" \
            "fuzz/corpus/$target" "fuzz/seeds/$target" >"$log" 2>&1 || status=$?
        replay=(fuzz/target/cpp/jsonconfig -runs=0 "fuzz/corpus/$target")
    else
        cargo fuzz run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- "${options[@]}" >"$log" 2>&1 || status=$?
        replay=(cargo fuzz run "$target" "fuzz/corpus/$target" -- -runs=0)
    fi
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log" >&2
        echo "tools/fuzz.sh: $target failed; the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    # The coverage of the whole corpus, as libFuzzer counts it when it loads it.
    "${replay[@]}" >"$log" 2>&1 || true
    grep -E "INITED|DONE" "$log" | tail -n 1 | sed 's/^/corpus: /' || true
done
echo "tools/fuzz.sh: every target ran ${seconds} s without a failure"
