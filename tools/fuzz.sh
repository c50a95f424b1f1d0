#!/usr/bin/env bash
# Runs every coverage-guided fuzz target (fuzz/fuzz_targets/*.rs, libFuzzer through cargo-fuzz)
# for SECONDS each (default 60) and fails on the first crash, panic, differential mismatch,
# leak, timeout (a single input slower than 10 s: the linear-time targets) or memory blow-up.
#
#   tools/fuzz.sh [SECONDS] [TARGET ...]
#
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP=1 gives them to the stable toolchain. The
# corpus grows in fuzz/corpus/<target>/ from the committed seeds in fuzz/seeds/<target>/ (new
# finds stay local; add an interesting one to the seeds by hand); a failing input is kept in fuzz/artifacts/<target>/ and
# replays with `RUSTC_BOOTSTRAP=1 cargo fuzz run <target> <file>` from the repository root.
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
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target"
    echo "== $target: ${seconds} s"
    # New inputs go to fuzz/corpus/<target> (local); fuzz/seeds/<target> is the committed start.
    if ! cargo fuzz run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "tools/fuzz.sh: $target failed; the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
done
echo "tools/fuzz.sh: every target ran ${seconds} s without a failure"
