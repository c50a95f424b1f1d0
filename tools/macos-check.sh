#!/usr/bin/env bash
# `cargo check` of the whole workspace (library, its unit tests, the integration tests, the bench,
# the scripted server) for the targets this machine cannot build for: aarch64-apple-darwin,
# x86_64-apple-darwin and x86_64-pc-windows-msvc (SPEC §I.1.3). Every warning is an error
# (RUSTFLAGS=-Dwarnings), so code that only compiles on Linux, or leaves an import unused on
# another platform, fails here. x86_64-pc-windows-gnu is proven further elsewhere: linked with
# mingw-w64 and run under Wine.
#
#   tools/macos-check.sh [TARGET...]   (default: the three above; every one is checked, the
#                                       script fails if any failed)
#   target dir: $CARGO_TARGET_DIR, default target/cross-check
#
# The C parts of dependencies: ring and zstd-sys compile C (and ring assembly) in their build
# scripts. There is no macOS SDK and no MSVC here, so a real cross compile with clang
# (`--target=arm64-apple-macosx`, clang-cl) stops at the first system header: zstd needs
# <string.h>, ring <TargetConditionals.h> on Apple (even in its -nostdlibinc mode) and the CRT's
# headers on Windows; without an SDK, clang falls back to this machine's glibc headers, which
# are not the target's. So the cc crate is given tools/stand-in-cc as the C compiler: it writes
# an empty object of the target's format for every source, and llvm-ar / llvm-lib make real
# archives of them. That is honest because `cargo check` never links: rustc only reads the
# metadata of the Rust dependencies, and the archives' contents are never looked at. What this
# proves is the Rust code of this workspace (and of every dependency) for each target, with its
# cfgs, its target-specific dependencies (windows-sys, security-framework, libc for Apple) and
# its FFI declarations type-checked; it proves nothing about the dependencies' C, which their
# own CI builds for these targets, nor about linking (README, "Platforms").
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/cross-check}

# A tool by its plain name, or else the newest versioned one (Debian: clang-14, llvm-ar-14).
find_tool() {
    if command -v "$1" >/dev/null; then
        command -v "$1"
        return
    fi
    local versioned
    versioned=$(compgen -c "$1-" | grep -E "^$1-[0-9]+$" | sort -V | tail -n 1 || true)
    if [ -z "$versioned" ]; then
        echo "macos-check: $1 not found (install clang and llvm)" >&2
        exit 1
    fi
    command -v "$versioned"
}
clang=$(find_tool clang)
llvm_ar=$(find_tool llvm-ar)
llvm_lib=$(find_tool llvm-lib)
export STAND_IN_CLANG=$clang
stand_in=$PWD/tools/stand-in-cc

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-msvc)
fi
installed=$(rustup target list --installed)

failed=()
summary=()
for target in "${targets[@]}"; do
    if ! grep -qx "$target" <<<"$installed"; then
        echo "macos-check: the Rust target $target is not installed (rustup target add $target)" >&2
        failed+=("$target")
        summary+=("$target: not installed")
        continue
    fi
    var=${target//-/_}
    case $target in
        *-msvc) ar=$llvm_lib ;;  # lib.exe-style flags (-out:, -nologo), as cc passes for MSVC
        *) ar=$llvm_ar ;;
    esac
    echo "== cargo check --target $target"
    start=$(date +%s)
    # RUSTFLAGS reaches only the crates built for $target: with --target, build scripts and
    # proc macros (host crates, checked by the Linux build) do not get it; dependencies have
    # their lints capped by cargo, so -Dwarnings judges this workspace's own code. --keep-going:
    # one failing test target does not hide the errors of the others.
    if env "CC_$var=$stand_in" "CXX_$var=$stand_in" "AR_$var=$ar" \
        RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Dwarnings" \
        cargo check --workspace --all-targets --keep-going --target "$target"; then
        result=ok
    else
        result=FAILED
        failed+=("$target")
    fi
    summary+=("$target: $result in $(($(date +%s) - start)) s")
done

echo "== summary"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    exit 1
fi
