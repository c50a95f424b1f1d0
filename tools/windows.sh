#!/usr/bin/env bash
# What this Linux machine can prove of the Windows build (SPEC §I.1.2, §I.1.3), with mingw-w64
# and Wine: the crate for x86_64-pc-windows-gnu, its DLL, import and static libraries, and the
# C ABI's programs, package and install built with CMake's MinGW toolchain and run under Wine.
#
#   tools/windows.sh                 every step, in order
#   tools/windows.sh ctest-static    only the steps named (in the order given)
#   tools/windows.sh --list          the steps and what each proves
#
# Needs: rustup target x86_64-pc-windows-gnu, mingw-w64 (x86_64-w64-mingw32-gcc/g++, objdump,
# nm, dlltool), wine (Wine 8.0: wine64), cmake, ninja, python3 (reads cargo's JSON messages),
# pkg-config. Everything it writes is under build-windows/ (git-ignored): one cargo target
# directory shared by every step (build-windows/cargo, RUSTFLAGS=-Dwarnings throughout, so
# that no step rebuilds what another built), a private WINEPREFIX (build-windows/wineprefix:
# ~/.wine is never touched), the CMake builds build-windows/c-shared and build-windows/c-static.
# It can be re-run at will: each step redoes its work incrementally.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build-windows
triple=x86_64-pc-windows-gnu
mingw=x86_64-w64-mingw32
toolchain=$root/cmake/toolchains/mingw-w64-x86_64.cmake

export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=$out/cargo
export RUSTFLAGS=-Dwarnings
export WINEPREFIX=$out/wineprefix
export WINEDEBUG=-all
# No Wine Mono / Gecko installers (nothing here is .NET or HTML).
export WINEDLLOVERRIDES="mscoree,mshtml="
cargo_out=$CARGO_TARGET_DIR/$triple/release

# The steps, in order.
steps=(cargo wine export-h ctest cargo-test stdio-child ctest-static)

describe() {
    case $1 in
    cargo) echo "cargo build --target $triple --lib --release without a warning; the DLL exports exactly the header's vi_* functions; the import library names visindigo_agent.dll and the static library defines them; the header cbindgen generated in that build is byte-identical to include/visindigo_agent.h" ;;
    wine) echo "a private Wine prefix; the stub bcryptprimitives.dll (ProcessPrng, which Rust's std imports and Wine 8.0 lacks) installed in it and working" ;;
    export-h) echo "include/Agent/Export.h with MinGW: a DLL built with VISINDIGO_AGENT_BUILDING exports exactly the marked class and function, a program importing them runs under Wine, and with VISINDIGO_AGENT_STATIC both link statically; with MSVC semantics (clang in cl mode, objects only): dllexport directives for the marked names alone, __imp_ references from users, none with VISINDIGO_AGENT_STATIC" ;;
    ctest) echo "CMake with the MinGW toolchain, C ABI only (VISINDIGO_AGENT_QT=OFF), shared: configure, build, ctest under Wine (the C test programs, the header checks, install + find_package and pkg-config consumers run with only the prefix's bin/ on WINEPATH)" ;;
    cargo-test) echo "cargo test --target $triple --lib --release under Wine: every unit test of the crate but the stdio ones (next step)" ;;
    stdio-child) echo "the stdio MCP child tests under Wine: a server ignoring EOF on stdin is ended (its Job Object terminated) in < 3 s, never outlives its host whether the host exits or is killed (KILL_ON_JOB_CLOSE), its CRLF lines are read, and a .cmd wrapper found through the entry's PATH (PATHEXT) gets its arguments through cmd.exe intact" ;;
    ctest-static) echo "the same with BUILD_SHARED_LIBS=OFF: the Rust static library and its system libraries link tst_c_abi and the consumers, which import no visindigo_agent.dll and pass under Wine" ;;
    *) return 1 ;;
    esac
}

say() { printf '%s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

# ---- helpers -------------------------------------------------------------------------------------
wine_cmd() {
    # wine64 where it is a command of its own, else Debian's `wine` launcher, which picks it.
    if command -v wine64 >/dev/null; then command -v wine64
    elif [ -x /usr/lib/wine/wine64 ]; then echo /usr/lib/wine/wine64
    else command -v wine
    fi
}

# The DLLs a PE file imports, in lower case, one a line. (Pipes into `grep -q` are avoided in
# this script: with pipefail, the writer's SIGPIPE would count as a failure.)
pe_imports() {
    "$mingw-objdump" -p "$1" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr 'A-Z' 'a-z'
}

# The function names include/visindigo_agent.h declares (declarations start a line; comments
# and macros do not).
header_functions() {
    grep -E '^[A-Za-z].*\bvi_[a-z0-9_]+\(' "$1" | grep -oE '\bvi_[a-z0-9_]+\(' | tr -d '(' | sort -u
}

# ---- the steps --------------------------------------------------------------------------------------
step_cargo() {
    mkdir -p "$out"
    local json=$out/cargo-build.json log=$out/cargo-build.log
    # JSON messages on stdout (the artifacts and the build script's OUT_DIR), diagnostics
    # rendered on stderr.
    if ! cargo build --target "$triple" --lib --release --message-format=json-render-diagnostics \
            >"$json" 2>"$log"; then
        cat "$log" >&2
        fail "cargo build --target $triple"
    fi
    if grep -E '^(warning|error)' "$log"; then
        fail "cargo build --target $triple printed warnings (above)"
    fi
    say "   no warning (RUSTFLAGS=-Dwarnings, and none printed)"

    local facts
    facts=$(python3 - "$json" <<'EOF'
import json, sys
out_dir, files = None, []
for line in open(sys.argv[1]):
    m = json.loads(line)
    pkg = m.get("package_id", "")
    if "visindigo-agent" not in pkg and "visindigo_agent" not in pkg:
        continue
    if m.get("reason") == "build-script-executed":
        out_dir = m["out_dir"]
    elif m.get("reason") == "compiler-artifact" and m["target"]["name"] == "visindigo_agent":
        files += m["filenames"]
print(out_dir or "")
for f in files:
    print(f)
EOF
)
    local out_dir dll implib staticlib
    out_dir=$(sed -n 1p <<<"$facts")
    dll=$(grep -E '/visindigo_agent\.dll$' <<<"$facts" || true)
    implib=$(grep -E '/libvisindigo_agent\.dll\.a$' <<<"$facts" || true)
    staticlib=$(grep -E '/libvisindigo_agent\.a$' <<<"$facts" || true)
    [ -n "$out_dir" ] || fail "cargo reported no OUT_DIR for visindigo-agent's build script"
    [ -f "$dll" ] || fail "cargo reported no visindigo_agent.dll (artifacts: $facts)"
    [ -f "$implib" ] || fail "cargo reported no import library libvisindigo_agent.dll.a"
    [ -f "$staticlib" ] || fail "cargo reported no static library libvisindigo_agent.a"
    say "   $(basename "$dll") ($(du -h "$dll" | cut -f1)), $(basename "$implib"), $(basename "$staticlib") ($(du -h "$staticlib" | cut -f1))"

    # The DLL's export table: the header's functions, nothing more, nothing less.
    header_functions include/visindigo_agent.h >"$out/header-functions.txt"
    "$mingw-objdump" -p "$dll" >"$out/dll-headers.txt"
    sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' "$out/dll-headers.txt" \
        | tail -n +2 | grep -oE '\] [^ ]+$' | cut -c3- | sort -u >"$out/dll-exports.txt"
    [ -s "$out/dll-exports.txt" ] || fail "no export table in $dll"
    if grep -v '^vi_' "$out/dll-exports.txt"; then
        fail "the DLL exports names without the vi_ prefix (above)"
    fi
    if ! diff -u "$out/header-functions.txt" "$out/dll-exports.txt"; then
        fail "the DLL's exports differ from the functions the header declares (- header, + DLL)"
    fi
    say "   exports: $(wc -l <"$out/dll-exports.txt") names, all vi_*, exactly the header's functions"
    say "   imports: $(grep 'DLL Name' "$out/dll-headers.txt" | awk '{print $3}' | sort -fu | tr '\n' ' ')"

    # The import library: for visindigo_agent.dll, with an __imp_ symbol per export.
    local named
    named=$("$mingw-dlltool" -I "$implib")
    [ "$named" = "visindigo_agent.dll" ] || fail "$(basename "$implib") names '$named', not visindigo_agent.dll"
    "$mingw-nm" -g --defined-only "$implib" 2>/dev/null | grep -oE '__imp_vi_[a-z0-9_]+$' \
        | sed 's/^__imp_//' | sort -u >"$out/implib-symbols.txt"
    diff -u "$out/dll-exports.txt" "$out/implib-symbols.txt" \
        || fail "the import library's __imp_ symbols differ from the DLL's exports"
    say "   import library: names visindigo_agent.dll, $(wc -l <"$out/implib-symbols.txt") __imp_vi_* symbols"

    # The static library: an archive defining every function.
    "$mingw-nm" -g --defined-only "$staticlib" 2>/dev/null | grep -E ' T vi_' | awk '{print $3}' \
        | sort -u >"$out/static-symbols.txt"
    diff -u "$out/header-functions.txt" "$out/static-symbols.txt" \
        || fail "the static library's vi_* functions differ from the header's"
    say "   static library: defines the $(wc -l <"$out/static-symbols.txt") vi_* functions"

    # The header of this build.
    cmp "$out_dir/visindigo_agent.h" include/visindigo_agent.h \
        || fail "the header generated for $triple ($out_dir/visindigo_agent.h) differs from include/visindigo_agent.h"
    say "   $out_dir/visindigo_agent.h is byte-identical to include/visindigo_agent.h"
}

step_wine() {
    local wine
    wine=$(wine_cmd) || fail "wine not found"
    say "   $($wine --version) ($wine), WINEPREFIX=$WINEPREFIX"
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
        say "   creating the prefix (wineboot -i, once)"
        "$wine" wineboot.exe -i >"$out/wineboot.log" 2>&1 || { cat "$out/wineboot.log" >&2; fail "wineboot -i"; }
        wineserver -w
    fi
    [ -d "$WINEPREFIX/drive_c/windows/system32" ] || fail "the Wine prefix has no system32"

    # Rust's std (1.78+) imports ProcessPrng from bcryptprimitives.dll at load time; Wine 8.0
    # has no such DLL. The stub implements it with RtlGenRandom (advapi32's SystemFunction036).
    # Real Windows (10 and later) has the DLL: the stub is for Wine only.
    local stub=$out/wine-stub
    mkdir -p "$stub/check"
    local builtin
    builtin=$(find /usr/lib/wine /usr/lib/x86_64-linux-gnu/wine /usr/lib64/wine -name 'bcryptprimitives.dll*' 2>/dev/null | head -1 || true)
    if [ -n "$builtin" ]; then
        say "   this Wine has its own bcryptprimitives ($builtin): no stub"
        rm -f "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
    else
        cat >"$stub/bcryptprimitives.c.new" <<'EOF'
/* Stand-in for Windows' bcryptprimitives.dll under Wine 8.0, which lacks it (written by
 * tools/windows.sh): ProcessPrng, which Rust's std calls for random bytes, on top of
 * RtlGenRandom (advapi32!SystemFunction036). Not needed, nor used, on Windows itself. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000u ? 0x10000000u : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
EOF
        cat >"$stub/check/prng_check.c.new" <<'EOF'
/* tools/windows.sh: ProcessPrng from bcryptprimitives.dll, as Rust's std imports it, fills
 * buffers with different, not all-zero bytes. */
#include <windows.h>
#include <stdio.h>
#include <string.h>

__declspec(dllimport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length);

int main(void)
{
    BYTE a[64], b[64], zero[64] = {0};
    if (!ProcessPrng(a, sizeof a) || !ProcessPrng(b, sizeof b)) {
        puts("prng_check: ProcessPrng failed");
        return 1;
    }
    if (memcmp(a, b, sizeof a) == 0 || memcmp(a, zero, sizeof a) == 0) {
        puts("prng_check: ProcessPrng gave no random bytes");
        return 1;
    }
    puts("prng_check: ok");
    return 0;
}
EOF
        # Rebuilt only when the source changed (the script is the source).
        if ! cmp -s "$stub/bcryptprimitives.c.new" "$stub/bcryptprimitives.c" || [ ! -f "$stub/bcryptprimitives.dll" ]; then
            mv "$stub/bcryptprimitives.c.new" "$stub/bcryptprimitives.c"
            "$mingw-gcc" -O2 -Wall -Wextra -Werror -shared -o "$stub/bcryptprimitives.dll" \
                "$stub/bcryptprimitives.c" -Wl,--out-implib,"$stub/libbcryptprimitives.dll.a" -ladvapi32
        fi
        rm -f "$stub/bcryptprimitives.c.new"
        grep -qE '\] ProcessPrng$' <<<"$("$mingw-objdump" -p "$stub/bcryptprimitives.dll")" \
            || fail "the stub does not export ProcessPrng"
        cp -f "$stub/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
        say "   stub bcryptprimitives.dll (exports ProcessPrng) in the prefix's system32"

        mv -f "$stub/check/prng_check.c.new" "$stub/check/prng_check.c"
        "$mingw-gcc" -O2 -Wall -Wextra -Werror -o "$stub/check/prng_check.exe" "$stub/check/prng_check.c" \
            -L"$stub" -lbcryptprimitives
        # Run from a directory without the DLL: it must come from the prefix.
        local result
        result=$(cd "$stub/check" && "$wine" prng_check.exe | tr -d '\r') || fail "prng_check.exe under Wine: $result"
        [ "$result" = "prng_check: ok" ] || fail "prng_check.exe: $result"
        say "   $result (a program importing ProcessPrng runs under Wine, the DLL found in the prefix)"
    fi
}

step_export-h() {
    local dir=$out/export-h wine
    wine=$(wine_cmd) || fail "wine not found"
    [ -f "$WINEPREFIX/system.reg" ] || step_wine
    [ -n "$dir" ] && [ "$dir" != "/" ] || fail "no build directory"
    rm -rf "$dir"
    mkdir -p "$dir"
    # A stand-in for the Qt layer: one exported class, one exported function, one that is not.
    cat >"$dir/lib.h" <<'EOF'
#include <Agent/Export.h>
class VISINDIGO_AGENT_EXPORT Exported
{
public:
    Exported();
    virtual ~Exported();
    int value() const;
private:
    int m_value;
};
VISINDIGO_AGENT_EXPORT int exported_function(int x);
int unexported_function(int x);
EOF
    cat >"$dir/lib.cpp" <<'EOF'
#include "lib.h"
Exported::Exported() : m_value(42) {}
Exported::~Exported() {}
int Exported::value() const { return m_value; }
int unexported_function(int x) { return x + 1; }
int exported_function(int x) { return unexported_function(x) * 2; }
EOF
    cat >"$dir/main.cpp" <<'EOF'
#include "lib.h"
#include <cstdio>
int main()
{
    Exported e;
    if (e.value() != 42 || exported_function(1) != 4)
        return 1;
    std::puts("export-h: ok");
    return 0;
}
EOF
    local cxx="$mingw-g++"
    local flags=(-std=c++17 -O2 -Wall -Wextra -Werror -I"$root/include" -I"$dir")
    # MinGW, shared: dllexport while building, dllimport when using.
    "$cxx" "${flags[@]}" -DVISINDIGO_AGENT_BUILDING -shared -o "$dir/exported.dll" "$dir/lib.cpp" \
        -Wl,--out-implib,"$dir/libexported.dll.a" -static-libgcc -static-libstdc++
    "$mingw-objdump" -p "$dir/exported.dll" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' \
        | tail -n +2 | grep -oE '\] [^ ]+$' | cut -c3- | sort >"$dir/exports.txt"
    grep -qx '_Z17exported_functioni' "$dir/exports.txt" || fail "MinGW: exported_function not exported"
    grep -qx '_ZNK8Exported5valueEv' "$dir/exports.txt" || fail "MinGW: Exported::value not exported"
    grep -qx '_ZN8ExportedC1Ev' "$dir/exports.txt" || fail "MinGW: Exported's constructor not exported"
    # (Only what is marked: without any dllexport, ld would export every symbol.)
    if grep -q 'unexported_function' "$dir/exports.txt"; then fail "MinGW: unexported_function is exported"; fi
    "$cxx" "${flags[@]}" -o "$dir/main.exe" "$dir/main.cpp" -L"$dir" -lexported -static-libgcc -static-libstdc++
    grep -qx exported.dll <<<"$(pe_imports "$dir/main.exe")" || fail "MinGW: main.exe does not import exported.dll"
    local result
    result=$(cd "$dir" && "$wine" main.exe | tr -d '\r') || fail "MinGW: main.exe under Wine: $result"
    [ "$result" = "export-h: ok" ] || fail "MinGW: main.exe: $result"
    say "   MinGW shared: the DLL exports $(wc -l <"$dir/exports.txt") names (the class's and exported_function, not unexported_function); main.exe imports them and runs under Wine"
    # MinGW, static: VISINDIGO_AGENT_STATIC on both sides.
    "$cxx" "${flags[@]}" -DVISINDIGO_AGENT_BUILDING -DVISINDIGO_AGENT_STATIC -c -o "$dir/lib-static.o" "$dir/lib.cpp"
    "$mingw-ar" rcs "$dir/libexported-static.a" "$dir/lib-static.o"
    "$cxx" "${flags[@]}" -DVISINDIGO_AGENT_STATIC -o "$dir/main-static.exe" "$dir/main.cpp" \
        -L"$dir" -lexported-static -static-libgcc -static-libstdc++
    if grep -qx exported.dll <<<"$(pe_imports "$dir/main-static.exe")"; then fail "MinGW static: main imports exported.dll"; fi
    result=$(cd "$dir" && "$wine" main-static.exe | tr -d '\r') || fail "MinGW static: main-static.exe under Wine: $result"
    [ "$result" = "export-h: ok" ] || fail "MinGW static: main-static.exe: $result"
    say "   MinGW static (VISINDIGO_AGENT_STATIC): links without the DLL and runs under Wine"

    # MSVC semantics: clang in cl mode compiles objects (no MSVC headers or libraries here; none
    # are needed, main.cpp's <cstdio> and puts are left out of this part).
    if ! command -v clang >/dev/null || ! command -v llvm-readobj >/dev/null || ! command -v llvm-nm >/dev/null; then
        say "   MSVC semantics: SKIPPED (clang, llvm-readobj or llvm-nm not found)"
        return 0
    fi
    local cl=(clang --driver-mode=cl --target=x86_64-pc-windows-msvc /nologo /c /W4 /WX /std:c++17
              /permissive- /Zc:__cplusplus /utf-8 "/I$root/include" "/I$dir")
    grep -v -e '#include <cstdio>' -e 'std::puts' "$dir/main.cpp" >"$dir/main-nostdio.cpp"
    "${cl[@]}" /DVISINDIGO_AGENT_BUILDING "-Fo$dir/lib-msvc.obj" -- "$dir/lib.cpp"
    llvm-readobj --coff-directives "$dir/lib-msvc.obj" >"$dir/lib-msvc.directives"
    grep -qF '/EXPORT:"?exported_function@@YAHH@Z"' "$dir/lib-msvc.directives" || fail "MSVC: no /EXPORT for exported_function"
    grep -qF '/EXPORT:"?value@Exported@@QEBAHXZ"' "$dir/lib-msvc.directives" || fail "MSVC: no /EXPORT for Exported::value"
    if grep -q 'unexported_function' "$dir/lib-msvc.directives"; then fail "MSVC: unexported_function is exported"; fi
    "${cl[@]}" "-Fo$dir/main-msvc.obj" -- "$dir/main-nostdio.cpp"
    llvm-nm "$dir/main-msvc.obj" >"$dir/main-msvc.nm"
    grep -qF ' U __imp_?exported_function@@YAHH@Z' "$dir/main-msvc.nm" || fail "MSVC: main does not import exported_function (__imp_)"
    "${cl[@]}" /DVISINDIGO_AGENT_STATIC "-Fo$dir/main-msvc-static.obj" -- "$dir/main-nostdio.cpp"
    llvm-nm "$dir/main-msvc-static.obj" >"$dir/main-msvc-static.nm"
    if grep -q '__imp_' "$dir/main-msvc-static.nm"; then fail "MSVC static: main still imports (__imp_)"; fi
    say "   MSVC semantics (clang-cl, /W4 /WX /permissive-): /EXPORT directives for the marked names alone; users reference __imp_ symbols; none with VISINDIGO_AGENT_STATIC"
}

# ctest_build <dir> <what> [cmake args...]: configure, build and run every test of a C-only
# MinGW build; the tests named in $expect_tests must be among them.
ctest_build() {
    local dir=$1 what=$2
    shift 2
    [ -f "$WINEPREFIX/system.reg" ] || step_wine
    cmake -S . -B "$dir" -G Ninja --no-warn-unused-cli \
        -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
        -DVISINDIGO_AGENT_QT=OFF -DVISINDIGO_AGENT_CARGO_TARGET_DIR="$CARGO_TARGET_DIR" "$@" >"$dir.configure.log" 2>&1 \
        || { cat "$dir.configure.log" >&2; fail "configure ($what)"; }
    grep -E 'VisindigoAgent: Rust target' "$dir.configure.log" | sed 's/^-- /   /'
    cmake --build "$dir" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log" >&2; fail "build ($what)"; }
    say "   built ($(grep -c '^\[' "$dir.build.log" || true) build steps)"
    local listed
    listed=$(ctest --test-dir "$dir" -N | sed -n 's/^ *Test *#[0-9]*: //p')
    local t
    for t in $expect_tests; do
        grep -qx "$t" <<<"$listed" || fail "ctest ($what) has no test $t (tests: $(tr '\n' ' ' <<<"$listed"))"
    done
    ctest --test-dir "$dir" --output-on-failure -j 2 >"$dir.ctest.log" 2>&1 \
        || { cat "$dir.ctest.log" >&2; fail "ctest ($what)"; }
    grep -E '^ *[0-9]+/[0-9]+ Test|tests passed' "$dir.ctest.log" | sed 's/^/   /'
}

expect_tests="tst_c_abi c_header_check_c c_header_check_cxx install_to_prefix consumer_cmake_c consumer_pkgconfig package_version"

step_ctest() {
    local dir=$out/c-shared
    ctest_build "$dir" shared
    # The installed layout the consumers used (install_to_prefix checked it too).
    local prefix=$dir/consumer-prefix
    [ -f "$prefix/bin/visindigo_agent.dll" ] && [ -f "$prefix/lib/libvisindigo_agent.dll.a" ] \
        || fail "the prefix lacks bin/visindigo_agent.dll or lib/libvisindigo_agent.dll.a"
    grep -qx visindigo_agent.dll <<<"$(pe_imports "$dir/bin/tst_c_abi.exe")" \
        || fail "tst_c_abi.exe of the shared build does not import visindigo_agent.dll"
    say "   tst_c_abi.exe imports visindigo_agent.dll; installed: bin/visindigo_agent.dll, lib/libvisindigo_agent.dll.a"
}

# cargo test of the library for Windows, run by Wine (cargo's runner), in the prefix that has
# the stub. Release: the dependencies are the ones the cargo step built.
lib_tests() {
    [ -f "$WINEPREFIX/system.reg" ] || step_wine
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$(wine_cmd) \
        cargo test --target "$triple" --lib --release -- "$@"
}

step_cargo-test() {
    lib_tests --skip mcp_client::stdio::
}

step_stdio-child() {
    local log=$out/stdio-child.log
    lib_tests mcp_client::stdio:: 2>&1 | tee "$log"
    # The tests must really have run here (a filter that matched nothing passes too).
    grep -qE '^test result: ok\. [4-9] passed' "$log" || fail "the stdio tests did not all run (see $log)"
    for t in a_server_that_ignores_eof_is_ended_within_the_grace_and_its_crlf_lines_are_read \
        a_server_does_not_outlive_its_host a_cmd_wrapper_found_through_the_entrys_path_gets_its_arguments_intact; do
        grep -qE "^test mcp_client::stdio::tests::$t \.\.\. ok" "$log" || fail "$t did not pass (see $log)"
    done
}

step_ctest-static() {
    local dir=$out/c-static
    ctest_build "$dir" static -DBUILD_SHARED_LIBS=OFF
    if grep -qx visindigo_agent.dll <<<"$(pe_imports "$dir/bin/tst_c_abi.exe")"; then
        fail "tst_c_abi.exe of the static build imports visindigo_agent.dll"
    fi
    [ ! -e "$dir/consumer-prefix/bin/visindigo_agent.dll" ] || fail "the static build installed a DLL"
    say "   tst_c_abi.exe imports no visindigo_agent.dll (static); the prefix has no DLL"
}

# ---- run --------------------------------------------------------------------------------------------
if [ "${1:-}" = "--list" ]; then
    for s in "${steps[@]}"; do printf '%-14s %s\n' "$s" "$(describe "$s")"; done
    exit 0
fi
run=("$@")
[ ${#run[@]} -gt 0 ] || run=("${steps[@]}")
for s in "${run[@]}"; do
    describe "$s" >/dev/null || fail "unknown step '$s' (steps: ${steps[*]})"
done

mkdir -p "$out"
summary=()
current=""
on_exit() {
    local rc=$?
    # The Wine server of the private prefix, if a step started one.
    if [ -d "$WINEPREFIX" ]; then wineserver -k 2>/dev/null || true; fi
    if [ $rc -ne 0 ] && [ -n "$current" ]; then
        summary+=("FAIL  $current")
    fi
    if [ ${#summary[@]} -gt 0 ]; then
        say ""
        say "== tools/windows.sh summary"
        printf '   %s\n' "${summary[@]}"
        say "   (to run a build's tests by hand, with this script's Wine prefix:"
        say "    WINEPREFIX=$WINEPREFIX WINEDEBUG=-all ctest --test-dir $out/c-shared)"
    fi
    exit $rc
}
trap on_exit EXIT
total_start=$(date +%s)
for s in "${run[@]}"; do
    current=$s
    say "== $s: $(describe "$s")"
    start=$(date +%s)
    "step_$s"
    took=$(( $(date +%s) - start ))
    say "-- $s: passed (${took} s)"
    summary+=("pass  $s (${took} s)")
    current=""
done
summary+=("all ${#run[@]} step(s) passed in $(( $(date +%s) - total_start )) s")
